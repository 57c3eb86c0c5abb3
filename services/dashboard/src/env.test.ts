import { describeProductionConnections } from '../../../test/support/connection-defaults';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadEnv } from './env';

const manifest = (file: string) =>
  parse(readFileSync(path.join(__dirname, '../../../k8s', file), 'utf8')) as {
    data?: Record<string, string>;
    stringData?: Record<string, string>;
  };

describe('the dashboard env in production', () => {
  it('refuses the placeholders of k8s/secret.example.yaml and k8s/configmap.yaml, naming each variable', () => {
    const source = { ...manifest('configmap.yaml').data, ...manifest('secret.example.yaml').stringData };
    expect(source.NODE_ENV).toBe('production');
    expect(() => loadEnv(source)).toThrow(/Invalid environment/);
    let message = '';
    try {
      loadEnv(source);
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of [
      'DATABASE_URL',
      'ROLELINK_SECRET_KEY',
      'PLATFORM_BOT_TOKEN',
      'PLATFORM_OAUTH_CLIENT_ID',
      'PLATFORM_OAUTH_CLIENT_SECRET',
      'DASHBOARD_SESSION_SECRET',
      'BROKER_INTERNAL_TOKEN',
    ]) {
      expect(message).toMatch(new RegExp(`^  ${name}: `, 'm'));
    }
  });
});

describeProductionConnections('the dashboard', loadEnv);

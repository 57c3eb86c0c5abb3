import { productionEnv } from '../../../scripts/service-process';
import { connectionDefaultCases, envProblems } from '../../../test/support/connection-defaults';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadEnv } from './env';

const manifest = (file: string) => parse(readFileSync(path.join(__dirname, '../../../k8s', file), 'utf8')) as { data?: Record<string, string>; stringData?: Record<string, string> };

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
    for (const name of ['DATABASE_URL', 'ROLELINK_SECRET_KEY', 'PLATFORM_BOT_TOKEN', 'PLATFORM_OAUTH_CLIENT_ID', 'PLATFORM_OAUTH_CLIENT_SECRET', 'DASHBOARD_SESSION_SECRET', 'BROKER_INTERNAL_TOKEN']) {
      expect(message).toMatch(new RegExp(`^  ${name}: `, 'm'));
    }
  });
});

// Issue 37 §6: in production the dashboard refuses a connection string it would otherwise take from the local
// development defaults (127.0.0.1), naming the variable, instead of starting against this machine's servers.
describe('the dashboard env: connection strings in production', () => {
  const valid = productionEnv('postgresql://rolelink:s3cret@db.example.com:5432/rolelink', 'redis://redis.example.com:6379', 'rolelink');

  it('accepts real connection strings', () => {
    expect(envProblems(loadEnv, valid)).toBe('');
  });

  for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) {
    it.each(connectionDefaultCases(name, valid))(`refuses ${name} %s, naming it`, (_case, source, problem) => {
      expect(envProblems(loadEnv, source)).toMatch(problem);
    });
  }

  it('keeps the local defaults outside production', () => {
    const { DATABASE_URL: _db, REDIS_URL: _redis, ...unset } = valid;
    expect(envProblems(loadEnv, { ...unset, NODE_ENV: 'development', DASHBOARD_PUBLIC_URL: 'http://127.0.0.1:3001' })).toBe('');
  });
});

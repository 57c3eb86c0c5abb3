import { productionEnv } from '../../../scripts/service-process';
import { connectionDefaultCases, envProblems } from '../../../test/support/connection-defaults';
import { loadEnv } from './env';

// In production the migrate command refuses a connection string it would otherwise take from the local
// development defaults (127.0.0.1), naming the variable, instead of starting against this machine's servers.
describe('the migrate command env: connection strings in production', () => {
  const valid = productionEnv(
    'postgresql://rolelink:s3cret@db.example.com:5432/rolelink',
    'redis://redis.example.com:6379',
    'rolelink',
  );

  it('accepts real connection strings', () => {
    expect(envProblems(loadEnv, valid)).toBe('');
  });

  for (const name of ['DATABASE_URL'] as const) {
    it.each(connectionDefaultCases(name, valid))(`refuses ${name} %s, naming it`, (_case, source, problem) => {
      expect(envProblems(loadEnv, source)).toMatch(problem);
    });
  }

  it('keeps the local defaults outside production', () => {
    const { DATABASE_URL: _db, REDIS_URL: _redis, ...unset } = valid;
    expect(
      envProblems(loadEnv, { ...unset, NODE_ENV: 'development', DASHBOARD_PUBLIC_URL: 'http://127.0.0.1:3001' }),
    ).toBe('');
  });
});

// For each service's env test: its parser in production must refuse DATABASE_URL and
// REDIS_URL unset, empty or left at the local development default, naming the variable, and accept real ones.
import { LOCAL_CONNECTION_DEFAULTS } from '@rolelink/runtime/src/env';
import { productionEnv } from '../../scripts/service-process';

type Loader = (source: NodeJS.ProcessEnv) => unknown;

/** The message a loader throws for `source`, '' when it accepts it. */
export function envProblems(load: Loader, source: NodeJS.ProcessEnv): string {
  try {
    load(source);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

/** Every way a production env can leave `name` on its development default: unset, empty, spelled out. */
export function connectionDefaultCases(
  name: keyof typeof LOCAL_CONNECTION_DEFAULTS,
  valid: NodeJS.ProcessEnv,
): [string, NodeJS.ProcessEnv, RegExp][] {
  const { [name]: _real, ...unset } = valid;
  const must = new RegExp(
    `^ {2}${name}: must be set in production \\(its default, "${LOCAL_CONNECTION_DEFAULTS[name].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}", is a local development server's\\)$`,
    'm',
  );
  return [
    ['unset', unset, must],
    ['empty', { ...valid, [name]: '' }, new RegExp(`^ {2}${name}: `, 'm')],
    [
      'the default spelled out',
      { ...valid, [name]: LOCAL_CONNECTION_DEFAULTS[name] },
      new RegExp(`^ {2}${name}: is a local development server's default; production needs its own$`, 'm'),
    ],
    [
      'the default with a trailing slash',
      { ...valid, [name]: `${LOCAL_CONNECTION_DEFAULTS[name]}/` },
      new RegExp(`^ {2}${name}: is a local development server's default`, 'm'),
    ],
  ];
}

/**
 * The tests every service's env parser gets: in production it refuses a connection string it would
 * otherwise take from the local development defaults (127.0.0.1), naming the variable, instead of
 * starting against this machine's servers; outside production the defaults stand.
 */
export function describeProductionConnections(service: string, load: Loader): void {
  describe(`${service} env: connection strings in production`, () => {
    const valid = productionEnv(
      'postgresql://rolelink:s3cret@db.example.com:5432/rolelink',
      'redis://redis.example.com:6379',
      'rolelink',
    );

    it('accepts real connection strings', () => {
      expect(envProblems(load, valid)).toBe('');
    });

    for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) {
      it.each(connectionDefaultCases(name, valid))(`refuses ${name} %s, naming it`, (_case, source, problem) => {
        expect(envProblems(load, source)).toMatch(problem);
      });
    }

    it('keeps the local defaults outside production', () => {
      const { DATABASE_URL: _db, REDIS_URL: _redis, ...unset } = valid;
      expect(
        envProblems(load, { ...unset, NODE_ENV: 'development', DASHBOARD_PUBLIC_URL: 'http://127.0.0.1:3001' }),
      ).toBe('');
    });
  });
}

import { TEST_KEY } from '../../plugin-broker/test/support/harness';
import { REDIS_URL } from '../../../test/support/redis';

/** What a CLI under test points at: a harness's database and Redis prefix, and its broker when it runs one. */
export type CliTarget = { db: { url: string }; prefix: string; brokerUrl?: string; brokerToken?: string };

/**
 * The environment `rolelink` reads, pointed at a test harness (the broker's, or the API's): its database,
 * Redis prefix, internal broker URL (when the harness runs a broker) and the broker harness's secret key,
 * with plugin hosts on 127.0.0.1 allowed and no platform configured (a test that needs the emulator sets
 * PLATFORM_* itself). `extra` adds or replaces variables, e.g. ROLELINK_OPERATOR, or ROLELINK_SECRET_KEY
 * for links seeded under another key. Returns the restore for afterAll.
 */
export function useCliEnv(h: CliTarget, extra: Record<string, string> = {}): () => void {
  const saved = { ...process.env };
  Object.assign(process.env, {
    DATABASE_URL: h.db.url,
    REDIS_URL,
    QUEUE_PREFIX: h.prefix,
    ROLELINK_SECRET_KEY: TEST_KEY.toString('hex'),
    ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: '127.0.0.1',
    ROLELINK_REGISTER_DEADLINE_MS: '1500',
    ...(h.brokerUrl !== undefined && h.brokerToken !== undefined
      ? { BROKER_URL: h.brokerUrl, BROKER_INTERNAL_TOKEN: h.brokerToken }
      : {}),
    ...extra,
  });
  delete process.env.PLATFORM_API_URL;
  delete process.env.PLATFORM_BOT_TOKEN;
  return () => {
    process.env = saved;
  };
}

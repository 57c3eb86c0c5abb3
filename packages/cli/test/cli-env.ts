import { TEST_KEY, type Harness } from '../../../services/plugin-broker/src/testing/harness';
import { REDIS_URL } from '../../../test/support/redis';

/**
 * The environment `rolelink` reads, pointed at a broker harness: its database, Redis prefix, secret key
 * and internal broker URL, with plugin hosts on 127.0.0.1 allowed and no platform configured (a test
 * that needs the emulator sets PLATFORM_* itself). Returns the restore for afterAll.
 */
export function useCliEnv(h: Harness): () => void {
  const saved = { ...process.env };
  Object.assign(process.env, {
    DATABASE_URL: h.db.url,
    REDIS_URL,
    QUEUE_PREFIX: h.prefix,
    ROLELINK_SECRET_KEY: TEST_KEY.toString('hex'),
    ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: '127.0.0.1',
    ROLELINK_REGISTER_DEADLINE_MS: '1500',
    BROKER_URL: h.brokerUrl,
    BROKER_INTERNAL_TOKEN: h.brokerToken,
  });
  delete process.env.PLATFORM_API_URL;
  delete process.env.PLATFORM_BOT_TOKEN;
  return () => {
    process.env = saved;
  };
}

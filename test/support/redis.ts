import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_URL } from './env';

/** A queue prefix of its own per test file (or benchmark run), with its keys deleted afterwards. */
export function testQueuePrefix(): string {
  return `rltest-${randomBytes(5).toString('hex')}`;
}

export async function dropPrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export { REDIS_URL };

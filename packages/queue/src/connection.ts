import { Redis, type RedisOptions } from 'ioredis';

/**
 * Producers fail fast when Redis is down (the outbox sweeper retries later); workers wait forever
 * (BullMQ requires maxRetriesPerRequest: null for blocking commands). notes/platform-limits.md.
 */
export function producerConnection(url: string, extra: RedisOptions = {}): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false, ...extra });
  redis.on('error', () => undefined); // surfaced through failed commands; the listener stops crash-on-error
  return redis;
}

export function workerConnection(url: string, extra: RedisOptions = {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, ...extra });
  redis.on('error', () => undefined);
  return redis;
}

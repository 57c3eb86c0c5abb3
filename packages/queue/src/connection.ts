import { Redis, type RedisOptions } from 'ioredis';
import { VerbatimString } from 'ioredis/built/resp/verbatim-string';

/**
 * ioredis 6 defines `class VerbatimString extends String` (RESP3's verbatim strings) as it loads. In V8
 * (Node 20) a String subclass that is defined but has never been constructed slows every `charCodeAt`
 * in the process several times over: a digit loop over 100,000 ids took 48-55 ms instead of 8-10, and
 * the PUT's id encoder (storedIdsCopy) 38-44 ms in the API instead of 17 (docs/benchmarks.md,
 * fourth session). Constructing one instance restores the fast path, so every process that connects to
 * Redis constructs one here, once, as this module loads.
 */
new VerbatimString('txt', '');

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

import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { VerbatimString } from 'ioredis/built/resp/verbatim-string';
import { parseRedisUrl } from '@rolelink/runtime';

/**
 * ioredis 6 defines `class VerbatimString extends String` (RESP3's verbatim strings) as it loads. In V8
 * (Node 20) a String subclass that is defined but has never been constructed slows every `charCodeAt`
 * in the process several times over, the PUT's id encoder (storedIdsCopy) included (docs/benchmarks.md,
 * "The encoder's cost in the API, found"). Constructing one instance restores the fast path, so every
 * process that connects to Redis constructs one here, once, as this module loads.
 */
new VerbatimString('txt', '');

/**
 * A connection to REDIS_URL: one Redis, or a Redis Cluster (redis+cluster://, packages/runtime/src/redis-url.ts).
 * BullMQ, the shared limiter and every other user take either; on a cluster every multi-key command stays
 * in one slot because QUEUE_PREFIX carries a hash tag (parseEnv refuses a cluster without one).
 */
export type RedisClient = Redis | Cluster;

/**
 * Producers fail fast when Redis is down (the outbox sweeper retries later); workers wait forever
 * (BullMQ requires maxRetriesPerRequest: null for blocking commands). notes/platform-limits.md.
 */
export function producerConnection(url: string, extra: RedisOptions = {}): RedisClient {
  const redis = connect(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false, ...extra });
  redis.on('error', () => undefined); // surfaced through failed commands; the listener stops crash-on-error
  return redis;
}

/**
 * Whether a shutdown may wait on this connection: only while it is connected. A worker connection queues
 * its commands through an outage and a QUIT is one of them, so waiting on one while Redis is down waits
 * for Redis to come back (the shutdown deadline, exit 1) instead of for the work in flight.
 */
export function redisAnswers(redis: RedisClient): boolean {
  return redis.status === 'ready';
}

/**
 * Closes a connection at shutdown: QUIT while Redis answers (replies still due arrive first), else drops
 * it. Nothing is lost by dropping it: what a command would have written had not been written yet, and
 * BullMQ gives an active job whose lock lapses to the next worker.
 */
export async function closeRedis(redis: RedisClient): Promise<void> {
  if (redis.status === 'end') return;
  if (redisAnswers(redis)) await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

export function workerConnection(url: string, extra: RedisOptions = {}): RedisClient {
  const redis = connect(url, { maxRetriesPerRequest: null, ...extra });
  redis.on('error', () => undefined);
  return redis;
}

/** Options that belong to the cluster client as a whole; the rest apply to each node's connection. */
const CLUSTER_LEVEL = ['enableOfflineQueue', 'lazyConnect', 'enableAutoPipelining', 'enableReadyCheck'] as const;

function connect(url: string, options: RedisOptions): RedisClient {
  const target = parseRedisUrl(url);
  if (target.kind === 'single') return new Redis(url, options);
  const perNode: RedisOptions = { ...options };
  const clusterOptions: ClusterOptions = {};
  for (const name of CLUSTER_LEVEL) {
    // Only options set: ioredis spreads these over its defaults, where an explicit undefined would win.
    if (options[name] !== undefined) Object.assign(clusterOptions, { [name]: options[name] });
    delete perNode[name];
  }
  if (target.username !== undefined) perNode.username = target.username;
  if (target.password !== undefined) perNode.password = target.password;
  if (target.tls) {
    perNode.tls = {};
    // The nodes' certificates name the hosts the cluster announces (ElastiCache's TLS clusters announce host
    // names): connect by that name, not by an address looked up first, or the certificate check fails.
    clusterOptions.dnsLookup = (address, callback) => callback(null, address);
  }
  return new Cluster(target.nodes, { ...clusterOptions, redisOptions: perNode });
}

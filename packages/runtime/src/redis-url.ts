/**
 * REDIS_URL names either one Redis (`redis://`, `rediss://` with TLS: ioredis reads it as it always has) or
 * a Redis Cluster, in the same one variable so every service, Secret and check keeps a single setting:
 *
 *   redis+cluster://[user[:password]@]host:port[,host:port…]
 *   rediss+cluster://…   (TLS to every node)
 *
 * The hosts are seeds: any one that answers gives the client the whole topology (CLUSTER SLOTS), so a
 * managed service's configuration or discovery endpoint (one host name) is enough. The credentials and TLS
 * apply to every node, as on a managed cluster. docs/operations.md "Redis Cluster".
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'cluster';
      nodes: { host: string; port: number }[];
      username: string | undefined;
      password: string | undefined;
      tls: boolean;
    };

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\//i;
const DEFAULT_PORT = 6379;

export const isClusterUrl = (value: string): boolean => CLUSTER_SCHEME.test(value);

/** Parses REDIS_URL; throws an Error whose message says what is wrong (never echoing a password). */
export function parseRedisUrl(value: string): RedisTarget {
  const scheme = CLUSTER_SCHEME.exec(value);
  if (!scheme) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(
        'must be a URL: redis://host:port, rediss://… (TLS), or redis+cluster://host:port,host:port for a Redis Cluster',
      );
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
      throw new Error(
        `must start with redis://, rediss://, redis+cluster:// or rediss+cluster:// (not ${url.protocol}//)`,
      );
    return { kind: 'single', url: value };
  }
  const rest = value.slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : null;
  const [hostList = '', ...tail] = rest.slice(at + 1).split(/(?=[/?#])/);
  const path = tail.join('');
  // A cluster has only database 0 (SELECT is refused), so a path could only be a mistake.
  if (path !== '' && path !== '/')
    throw new Error(
      'a Redis Cluster has only database 0: leave the path and query out (redis+cluster://host:port,host:port)',
    );
  const nodes = hostList.split(',').map((h) => parseNode(h.trim()));
  let username: string | undefined;
  let password: string | undefined;
  if (auth !== null) {
    const colon = auth.indexOf(':');
    username = decode(colon >= 0 ? auth.slice(0, colon) : auth) || undefined;
    password = colon >= 0 ? decode(auth.slice(colon + 1)) || undefined : undefined;
  }
  return { kind: 'cluster', nodes, username, password, tls: scheme[1]!.toLowerCase() === 'rediss' };
}

function parseNode(text: string): { host: string; port: number } {
  // [v6 address]:port, or host:port, or host (the default port).
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/.exec(text);
  const port = m?.[3] === undefined ? DEFAULT_PORT : Number(m[3]);
  if (!m || port < 1 || port > 65535)
    throw new Error(
      `has a node that is not host:port: ${JSON.stringify(text)} (redis+cluster://host:port[,host:port…])`,
    );
  return { host: m[1] ?? m[2]!, port };
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Error(
      'has credentials that are not percent-encoded: encode special characters of the user and password (encodeURIComponent)',
    );
  }
}

/**
 * Redis Cluster hashes a key by its hash tag: the text between the first `{` and the next `}`, when not
 * empty. BullMQ's scripts and the shared limiter's touch several keys at once, which a cluster runs only
 * when they share a slot; every key starts with QUEUE_PREFIX, so a prefix with a hash tag puts them all in one.
 */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  if (open < 0) return false;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1;
}

/**
 * The rule joining REDIS_URL and QUEUE_PREFIX (for parseEnv): on a cluster the prefix must carry a hash
 * tag, or the first multi-key script fails with CROSSSLOT at run time instead of here, at start.
 */
export function clusterPrefixProblem(redisUrl: string | undefined, queuePrefix: string): string | null {
  if (redisUrl === undefined || !isClusterUrl(redisUrl) || hasHashTag(queuePrefix)) return null;
  return `QUEUE_PREFIX: must hold a hash tag on a Redis Cluster (REDIS_URL is redis+cluster://), e.g. {${queuePrefix.replace(/[{}]/g, '') || 'rolelink'}}, so each queue's keys share one slot`;
}

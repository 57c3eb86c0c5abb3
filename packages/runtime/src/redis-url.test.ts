import { z } from 'zod';
import { envFields, parseEnv } from './env';
import { clusterPrefixProblem, hasHashTag, parseRedisUrl } from './redis-url';

const errorOf = (value: string): string => {
  try {
    parseRedisUrl(value);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('parseRedisUrl', () => {
  it('leaves a single Redis URL to ioredis as it is', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
    expect(parseRedisUrl('rediss://u:p@cache.example.com:6380/2')).toEqual({
      kind: 'single',
      url: 'rediss://u:p@cache.example.com:6380/2',
    });
  });

  it('reads a cluster: seed nodes, default port, IPv6, credentials (percent-decoded) and TLS', () => {
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002,cache.internal')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
        { host: 'cache.internal', port: 6379 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(
      parseRedisUrl('rediss+cluster://rolelink:p%40ss%2Fw:rd@clustercfg.rl.abc123.use1.cache.amazonaws.com:6379/'),
    ).toEqual({
      kind: 'cluster',
      nodes: [{ host: 'clustercfg.rl.abc123.use1.cache.amazonaws.com', port: 6379 }],
      username: 'rolelink',
      password: 'p@ss/w:rd',
      tls: true,
    });
    // A password alone (requirepass / an AUTH token), as redis:// spells it.
    expect(parseRedisUrl('rediss+cluster://:token@10.0.0.1:6379')).toMatchObject({
      username: undefined,
      password: 'token',
    });
  });

  it('says what is wrong, never echoing the password', () => {
    expect(errorOf('not a url')).toMatch(/^must be a URL: redis:\/\/host:port/);
    expect(errorOf('http://127.0.0.1:6379')).toBe(
      'must start with redis://, rediss://, redis+cluster:// or rediss+cluster:// (not http://)',
    );
    expect(errorOf('redis+cluster://10.0.0.1:7000/1')).toMatch(/only database 0/);
    expect(errorOf('redis+cluster://10.0.0.1:7000,')).toBe(
      'has a node that is not host:port: "" (redis+cluster://host:port[,host:port…])',
    );
    expect(errorOf('redis+cluster://10.0.0.1:70000')).toMatch(/not host:port: "10.0.0.1:70000"/);
    expect(errorOf('redis+cluster://')).toMatch(/not host:port: ""/);
    const badEncoding = errorOf('redis+cluster://u:secret%zz@10.0.0.1:7000');
    expect(badEncoding).toMatch(/not percent-encoded/);
    expect(badEncoding).not.toContain('secret');
  });
});

describe('hash tags', () => {
  it('finds one the way Redis Cluster does: the first { and the next }, not empty', () => {
    expect(['{rolelink}', 'rl{prod}', '{a}{b}'].map(hasHashTag)).toEqual([true, true, true]);
    expect(['rolelink', '{}rolelink', 'rolelink{', 'role}link{'].map(hasHashTag)).toEqual([false, false, false, false]);
  });

  it('is required of QUEUE_PREFIX on a cluster only', () => {
    expect(clusterPrefixProblem('redis://127.0.0.1:6379', 'rolelink')).toBeNull();
    expect(clusterPrefixProblem('redis+cluster://10.0.0.1:7000', '{rolelink}')).toBeNull();
    expect(clusterPrefixProblem('redis+cluster://10.0.0.1:7000', 'rolelink')).toBe(
      "QUEUE_PREFIX: must hold a hash tag on a Redis Cluster (REDIS_URL is redis+cluster://), e.g. {rolelink}, so each queue's keys share one slot",
    );
  });
});

describe('REDIS_URL and QUEUE_PREFIX in a service env', () => {
  const schema = z.object({ REDIS_URL: envFields.redisUrl, QUEUE_PREFIX: envFields.queuePrefix });
  const problems = (source: NodeJS.ProcessEnv): string => {
    try {
      parseEnv(schema, source);
      return '';
    } catch (err) {
      return (err as Error).message;
    }
  };

  it('accepts a single Redis with any prefix, and a cluster with a hash-tagged one', () => {
    expect(parseEnv(schema, {})).toEqual({ REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: 'rolelink' });
    expect(parseEnv(schema, { REDIS_URL: 'redis+cluster://10.0.0.1:7000', QUEUE_PREFIX: '{rolelink}' })).toEqual({
      REDIS_URL: 'redis+cluster://10.0.0.1:7000',
      QUEUE_PREFIX: '{rolelink}',
    });
  });

  it('refuses a cluster under the default prefix, and a malformed cluster URL, naming the variable', () => {
    expect(problems({ REDIS_URL: 'redis+cluster://10.0.0.1:7000' })).toMatch(
      /^ {2}QUEUE_PREFIX: must hold a hash tag on a Redis Cluster/m,
    );
    expect(problems({ REDIS_URL: 'redis+cluster://10.0.0.1:7000/3', QUEUE_PREFIX: '{rolelink}' })).toMatch(
      /^ {2}REDIS_URL: a Redis Cluster has only database 0/m,
    );
  });
});

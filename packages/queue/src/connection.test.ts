import { Cluster, Redis } from 'ioredis';
import { producerConnection, workerConnection } from './connection';

// Which client and where each option lands; lazyConnect so nothing connects. The cluster's behaviour
// against real nodes (sync, limiter, schedulers, failover) is test/cluster/redis-cluster.cluster.test.ts.

describe('connections', () => {
  it('builds one Redis for redis:// as before', () => {
    const redis = producerConnection('redis://127.0.0.1:6379', { lazyConnect: true });
    try {
      expect(redis).toBeInstanceOf(Redis);
      expect((redis as Redis).options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    } finally {
      redis.disconnect();
    }
  });

  it('builds an ioredis Cluster for rediss+cluster://: fail-fast at the cluster, retries, credentials and TLS on every node', () => {
    const cluster = producerConnection('rediss+cluster://rolelink:p%40ss@10.0.0.1:7000,10.0.0.2:7001', {
      lazyConnect: true,
    });
    try {
      expect(cluster).toBeInstanceOf(Cluster);
      const { options } = cluster as Cluster;
      expect(options).toMatchObject({ enableOfflineQueue: false, lazyConnect: true });
      expect(options.redisOptions).toEqual({
        maxRetriesPerRequest: 1,
        username: 'rolelink',
        password: 'p@ss',
        tls: {},
      });
      // TLS: the announced host name is connected to as it is, so the certificate names it.
      const looked: [Error | null | undefined, string][] = [];
      options.dnsLookup!('clustercfg.example.cache.amazonaws.com', (err, address) => looked.push([err, address]));
      expect(looked).toEqual([[null, 'clustercfg.example.cache.amazonaws.com']]);
    } finally {
      cluster.disconnect();
    }
  });

  it("gives a cluster's worker connections maxRetriesPerRequest null on every node, as BullMQ's blocking reads need", () => {
    const cluster = workerConnection('redis+cluster://10.0.0.1:7000', { lazyConnect: true });
    try {
      expect(cluster).toBeInstanceOf(Cluster);
      expect((cluster as Cluster).options.redisOptions).toEqual({ maxRetriesPerRequest: null });
      // No TLS: addresses are looked up as ioredis does by default.
      expect((cluster as Cluster).options.redisOptions?.tls).toBeUndefined();
    } finally {
      cluster.disconnect();
    }
  });
});

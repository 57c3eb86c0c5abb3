import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from '../../scripts/free-port';
import { spawnGroup, waitUntil, type ManagedProcess } from '../../scripts/local/process-group';
import { findRedisServer } from '../../scripts/local/redis-server';

const run = promisify(execFile);

/**
 * A Redis Cluster of a test's own: three masters and one replica each, Debian's redis-server on free ports
 * (client and cluster-bus ports both picked free, so a port near 65535 needs no +10000 bus port) in a temp
 * directory, keeping nothing on disk. Never the shared Redis. `killMasterOf(key)` SIGKILLs the master that
 * holds a key's slot and waits until its replica has taken the slot over.
 */
export type ClusterNode = { port: number; process: ManagedProcess };

export type OwnCluster = {
  /** REDIS_URL for the services: redis+cluster:// with every master and replica as a seed. */
  url: string;
  nodes: ClusterNode[];
  /** The hash slot of `key` (CLUSTER KEYSLOT). */
  slotOf(key: string): Promise<number>;
  /** The port of the master serving `key`'s slot now. */
  masterPortOf(key: string): Promise<number>;
  /** SIGKILLs the master of `key`'s slot; resolves with the killed and the promoted ports once the cluster is whole again. */
  killMasterOf(key: string): Promise<{ killed: number; promoted: number }>;
  stop(): Promise<void>;
};

/**
 * How long a node may be silent before the others fail it over. Short so the failover takes seconds, long
 * enough that a busy test machine (load 15+) does not fail over a healthy node.
 */
const NODE_TIMEOUT_MS = 3_000;

const ask = async <T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> => {
  const r = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 2_000,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
};

type NodeLine = { id: string; port: number; flags: string[]; masterId: string; slots: string[] };

function nodesOf(text: string): NodeLine[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', addr = '', flags = '', masterId = '', , , , , ...slots] = line.split(' ');
      return { id, port: Number(addr.split('@')[0]!.split(':')[1]), flags: flags.split(','), masterId, slots };
    });
}

const holdsSlot = (n: NodeLine, slot: number) =>
  n.slots.some((range) => {
    const [lo, hi = lo] = range.split('-').map(Number);
    return lo !== undefined && hi !== undefined && slot >= lo && slot <= hi;
  });

export async function ownCluster(log: (m: string) => void = () => undefined): Promise<OwnCluster> {
  const bin = findRedisServer(log, false);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rl-cluster-'));
  const nodes: ClusterNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.process.stop('SIGKILL', 0)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      const nodeDir = path.join(dir, String(port));
      mkdirSync(nodeDir);
      const args = [
        ...['--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir, '--daemonize', 'no'],
        ...['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
        ...[
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-port',
          String(busPort),
          '--cluster-node-timeout',
          String(NODE_TIMEOUT_MS),
        ],
      ];
      nodes.push({
        port,
        process: spawnGroup(`redis-cluster-${port}`, bin, args, { logFile: path.join(nodeDir, 'redis.log') }),
      });
    }
    for (const n of nodes) {
      await waitUntil(() => ask(n.port, async (r) => (await r.ping()) === 'PONG'), {
        timeoutMs: 30_000,
        abort: () =>
          n.process.running()
            ? null
            : `redis-server on ${n.port} exited during start-up; see ${dir}/${n.port}/redis.log`,
      });
    }
    // redis-cli assigns the slots and pairs each master with a replica (the first three are the masters).
    await run(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
      { timeout: 60_000 },
    );
    await waitUntil(() => whole(nodes.map((n) => n.port)), { timeoutMs: 60_000, intervalMs: 250 });
  } catch (err) {
    await stop();
    throw err;
  }

  const live = () => nodes.filter((n) => n.process.running());
  const view = async (): Promise<NodeLine[]> =>
    nodesOf(await ask(live()[0]!.port, (r) => r.cluster('NODES') as Promise<string>));
  const slotOf = (key: string) => ask(live()[0]!.port, (r) => r.cluster('KEYSLOT', key));
  const masterPortOf = async (key: string): Promise<number> => {
    const slot = await slotOf(key);
    const master = (await view()).find(
      (n) => n.flags.includes('master') && !n.flags.includes('fail') && holdsSlot(n, slot),
    );
    if (!master) throw new Error(`no live master holds slot ${slot}`);
    return master.port;
  };

  return {
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodes,
    slotOf,
    masterPortOf,
    async killMasterOf(key) {
      const killed = await masterPortOf(key);
      const victim = nodes.find((n) => n.port === killed)!;
      await victim.process.stop('SIGKILL', 0);
      let promoted = 0;
      await waitUntil(
        async () => {
          promoted = await masterPortOf(key).catch(() => 0);
          return (
            promoted !== 0 &&
            promoted !== killed &&
            (await whole(
              live().map((n) => n.port),
              false,
            ))
          );
        },
        { timeoutMs: 120_000, intervalMs: 250 },
      );
      return { killed, promoted };
    },
    stop,
  };
}

/** Every node says the cluster is ok and (while all run) every replica has its master's data streaming. */
async function whole(ports: number[], replicasLinked = true): Promise<boolean> {
  for (const port of ports) {
    const info = await ask(port, (r) => r.cluster('INFO'));
    if (!info.includes('cluster_state:ok')) return false;
    if (replicasLinked) {
      const replication = await ask(port, (r) => r.info('replication'));
      if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
    }
  }
  return true;
}

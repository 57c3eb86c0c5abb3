import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from '../../scripts/free-port';

/**
 * A redis-server of a test's own, on its own port, keeping nothing on disk (as the machine's does), for
 * tests that kill Redis: a SIGKILL loses every key, as a crashed Redis without persistence does.
 */
export type OwnRedis = { port: number; url: string; start(): Promise<void>; kill(): Promise<void> };

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let proc: ChildProcess | null = null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await probe.connect();
          await probe.ping();
          probe.disconnect();
          return;
        } catch {
          if (Date.now() > deadline) throw new Error(`redis-server did not start on ${port}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
    async kill() {
      const p = proc;
      proc = null;
      if (!p) return;
      p.kill('SIGKILL');
      if (p.exitCode === null && p.signalCode === null) await once(p, 'exit');
    },
  };
}

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/free-port';
import { startLocalRedis, type LocalRedis } from '../../scripts/local/redis-server';

/**
 * A redis-server of a test's own, on its own port, keeping nothing on disk (scripts/local/redis-server.ts,
 * as the local stack runs it), for tests that kill Redis: a SIGKILL loses every key, as a crashed Redis
 * without persistence does. `start` again after `kill` gives an empty Redis on the same port.
 */
export type OwnRedis = { port: number; url: string; start(): Promise<void>; kill(): Promise<void> };

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rl-redis-'));
  let running: LocalRedis | null = null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      running = await startLocalRedis({
        port,
        dataDir: path.join(dir, 'data'),
        log: () => undefined,
        allowInstall: false,
      });
    },
    async kill() {
      const r = running;
      running = null;
      await r?.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

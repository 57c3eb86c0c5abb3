import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { docker, exec } from './deploy-local';

// A Docker engine for a test that drives Docker itself (compose-quickstart.deploy.test.ts), the way
// scripts/deploy-local.sh gets one: the engine that answers, else Debian's docker.io and docker-compose
// installed (as root) and a dockerd started, which stopEngine() stops again by its pid.
export type Engine = { pid: number | null };

const answers = async () =>
  docker('version', '--format', '{{.Server.Version}}').then(
    () => true,
    () => false,
  );

export async function ensureEngine(stateDir: string): Promise<Engine> {
  if (await answers()) return { pid: null };
  mkdirSync(stateDir, { recursive: true });
  if (!existsSync('/usr/sbin/dockerd') || !existsSync('/usr/bin/docker-compose')) {
    await exec('apt-get', ['install', '-y', '-qq', 'docker.io', 'docker-compose'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  const log = openSync(path.join(stateDir, 'dockerd.log'), 'a');
  const child = spawn('/usr/sbin/dockerd', [], { detached: true, stdio: ['ignore', log, log] });
  child.unref();
  // Waits follow the engine's progress, with a generous overall deadline for a busy host.
  const deadline = Date.now() + 120_000;
  while (!(await answers())) {
    if (Date.now() > deadline) throw new Error(`dockerd did not answer; see ${stateDir}/dockerd.log`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return { pid: child.pid ?? null };
}

export async function stopEngine(engine: Engine): Promise<void> {
  if (engine.pid === null) return;
  process.kill(engine.pid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      process.kill(engine.pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`dockerd (pid ${engine.pid}) did not stop within 60 s of SIGTERM`);
}

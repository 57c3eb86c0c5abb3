import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

// What the Docker tests of `pnpm test:deploy` share (deploy-local.deploy.test.ts, live-alerts.deploy.test.ts):
// the script that builds and runs the Compose stack, Debian's docker client, and the project's containers.
export const ROOT = path.resolve(__dirname, '..', '..');
export const PROJECT = 'rolelink-local';
export const STATE = path.join(ROOT, '.data', 'deploy-local');
export const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

export const exec = promisify(execFile);
export const docker = async (...args: string[]): Promise<string> =>
  (await exec(DOCKER, args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();

/** Runs a script of the repository (bash) with its output shown live; resolves with its exit code. */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(ROOT, script), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject).once('exit', (code) => resolve(code));
  });
}

/** `pnpm deploy:local` (scripts/deploy-local.sh) with these options and host ports. */
export const deployLocal = (args: string[], env: NodeJS.ProcessEnv): Promise<number | null> =>
  runScript('scripts/deploy-local.sh', args, env);

export type Container = {
  id: string;
  service: string;
  status: string;
  exitCode: number;
  health: string | null;
  healthLog: string[];
  startedAt: string;
  finishedAt: string;
  ip: string;
};

export async function projectContainers(): Promise<Container[]> {
  const ids = (await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${PROJECT}`))
    .split('\n')
    .filter(Boolean);
  if (ids.length === 0) return [];
  const inspected = JSON.parse(await docker('inspect', ...ids)) as {
    Id: string;
    Config: { Labels: Record<string, string> };
    State: {
      Status: string;
      ExitCode: number;
      Health?: { Status: string; Log?: { ExitCode: number; Output: string }[] };
      StartedAt: string;
      FinishedAt: string;
    };
    NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
  }[];
  return inspected.map((c) => ({
    id: c.Id,
    service: c.Config.Labels['com.docker.compose.service'] ?? '?',
    status: c.State.Status,
    exitCode: c.State.ExitCode,
    health: c.State.Health?.Status ?? null,
    healthLog: (c.State.Health?.Log ?? []).map((l) => `exit ${l.ExitCode}: ${l.Output.trim()}`),
    startedAt: c.State.StartedAt,
    finishedAt: c.State.FinishedAt,
    ip: Object.values(c.NetworkSettings.Networks)[0]?.IPAddress ?? '',
  }));
}

// Root can install docker.io; anyone else needs an engine that already answers. Said, not silently passed.
const canInstall = process.getuid?.() === 0;
export const describeDocker = canInstall || existsSync('/var/run/docker.sock') ? describe : describe.skip;
if (describeDocker === describe.skip)
  console.warn(
    'Docker tests skipped: not root (cannot install Docker) and no Docker engine socket at /var/run/docker.sock',
  );

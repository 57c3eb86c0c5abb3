// The `./rolelink` launcher at the repository root: runs the CLI for a user whose PATH has no pnpm
// (scripts/start.sh installs it into ~/.local/bin only for itself), from any directory, with its exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LAUNCHER = path.resolve(__dirname, '..', '..', '..', 'rolelink');
const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'rolelink-cwd-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

/** Runs the launcher from a foreign directory with node's directory and the system's on PATH only. */
function launch(...args: string[]) {
  const PATH = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');
  return spawnSync(LAUNCHER, args, { cwd: elsewhere, env: { PATH, HOME: elsewhere }, encoding: 'utf8', timeout: 30_000 });
}

describe('./rolelink', () => {
  it('runs the CLI without pnpm from another directory and forwards its exit code', () => {
    const help = launch('help');
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: rolelink <command>/);
    expect(launch().status).toBe(2);
    const unknown = launch('frobnicate', '--json');
    expect(unknown.status).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({ statusCode: 400, message: 'unknown command: frobnicate (see rolelink help)' });
  });
});

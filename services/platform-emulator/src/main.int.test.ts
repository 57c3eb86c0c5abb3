import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GUILD, smallSeed, TEST_USER_AGENT } from '../test/support/fixtures';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MAIN = path.join(__dirname, 'main.ts');

type Run = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

function run(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitFor(r: Run, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = r.output().match(pattern);
    if (m) return m;
    if (Date.now() > deadline || r.child.exitCode !== null) throw new Error(`no ${pattern} in output:\n${r.output()}`);
    await nextChunk(r.child);
  }
}

function nextChunk(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      child.stdout!.off('data', done).off('end', done);
      resolve();
    };
    child.stdout!.on('data', done).on('end', done);
  });
}

describe('the standalone emulator command', () => {
  it('starts with a seed file, prints its URL, serves the seed and stops on SIGTERM', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'emulator-'));
    const seedFile = path.join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(smallSeed()));
    const r = run({ EMULATOR_PORT: '0', EMULATOR_SEED: seedFile, EMULATOR_BOT_TOKEN: 'cli-token' });
    const [, url] = await waitFor(r, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const res = await fetch(`${url}/api/v10/guilds/${GUILD}`, {
      headers: { Authorization: 'Bot cli-token', 'User-Agent': TEST_USER_AGENT },
    });
    expect(res.status).toBe(200);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    expect(r.output()).toContain('stopped');
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 1 with a clear message when the port is already in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = run({ EMULATOR_PORT: String(port) });
      expect(await r.exited).toBe(1);
      expect(r.output()).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('exits 1 naming the variable when the environment is invalid', async () => {
    const r = run({ EMULATOR_GLOBAL_PER_SEC: 'fast' });
    expect(await r.exited).toBe(1);
    expect(r.output()).toContain('EMULATOR_GLOBAL_PER_SEC');
  });
});

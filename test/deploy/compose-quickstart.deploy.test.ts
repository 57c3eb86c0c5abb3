import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describeDocker, docker, exec, ROOT } from './deploy-local';
import { ensureEngine, stopEngine } from './engine';

// docs/compose.md's quickstart, as a reader runs it: every fenced block marked `sh step`, in order, in a
// fresh clone of the committed tree. The test gives the steps only what the page asks the reader for (the
// platform application's three values); then it checks the result from outside and takes it down.
const PROJECT = 'rolelink'; // .env.example's COMPOSE_PROJECT_NAME, which step 1 copies
const PLATFORM = {
  PLATFORM_BOT_TOKEN: `quickstart-bot-${'b'.repeat(40)}`,
  PLATFORM_OAUTH_CLIENT_ID: '1234567890123456789',
  PLATFORM_OAUTH_CLIENT_SECRET: `quickstart-secret-${'s'.repeat(32)}`,
};

/** The page's step blocks: fenced with the info string `sh step`. */
export function quickstartSteps(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh step\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Runs one step with bash in `cwd`, its output shown live; rejects with the step when it exits non-zero. */
function runStep(step: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', step], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject).once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`the step exited ${code}:\n${step}`));
    });
  });
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

function httpsGet(port: number, urlPath: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', servername: 'localhost', port, path: urlPath, ca }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .once('error', reject);
  });
}

type Inspected = {
  Config: { Labels: Record<string, string> };
  HostConfig: { Memory: number; LogConfig: { Type: string; Config: Record<string, string> } };
  NetworkSettings: { Ports: Record<string, { HostIp: string; HostPort: string }[] | null> };
};

describeDocker('docs/compose.md quickstart', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-quickstart-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...PLATFORM };
  // Nothing of this shell's own Compose settings reaches the steps: only what the page writes to .env.
  for (const key of Object.keys(env))
    if (/^(COMPOSE_|API_PORT$|DASHBOARD_PORT$|HTTPS_PORT$|API_HTTPS_PORT$|TLS_|POSTGRES_|REDIS_IMAGE$)/.test(key))
      delete env[key];
  let engine: Awaited<ReturnType<typeof ensureEngine>> | null = null;
  let started = false;

  beforeAll(async () => {
    engine = await ensureEngine(path.join(ROOT, '.data', 'compose-quickstart'));
    for (const port of [443, 8443])
      if (!(await portFree(port)))
        throw new Error(`127.0.0.1:${port} is taken: the quickstart publishes the proxy there; free it and run again`);
    await exec('git', ['clone', '-q', ROOT, dir]);
    const steps = quickstartSteps(readFileSync(path.join(dir, 'docs', 'compose.md'), 'utf8'));
    expect(steps.length).toBeGreaterThanOrEqual(5);
    for (const step of steps) {
      if (/docker(-| )compose up/.test(step)) started = true;
      await runStep(step, dir, env);
    }
  });

  afterAll(async () => {
    if (started)
      await exec('docker-compose', ['down', '--volumes', '--remove-orphans', '--timeout', '30'], { cwd: dir, env });
    rmSync(dir, { recursive: true, force: true });
    if (engine) await stopEngine(engine);
  });

  test('the API answers /readyz and the dashboard answers, over HTTPS through the proxy', async () => {
    const ca = readFileSync(path.join(dir, 'tls', 'cert.pem'));
    const ready = await httpsGet(8443, '/readyz', ca);
    expect(ready.status).toBe(200);
    const dashboard = await httpsGet(443, '/', ca);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toMatch(/<html/i);
    expect((await httpsGet(443, '/readyz', ca)).status).toBe(200);
  });

  test('only the proxy is published, on 127.0.0.1; every container has a memory limit and rotated logs', async () => {
    const ids = (await docker('ps', '-q', '--filter', `label=com.docker.compose.project=${PROJECT}`)).split('\n');
    const containers = JSON.parse(await docker('inspect', ...ids.filter(Boolean))) as Inspected[];
    const services = containers.map((c) => c.Config.Labels['com.docker.compose.service']).sort();
    expect(services).toEqual(
      [
        'api',
        'bot-worker',
        'bot-worker',
        'bot-worker',
        'dashboard',
        'plugin-broker',
        'postgres',
        'proxy',
        'redis',
      ].sort(),
    );
    for (const c of containers) {
      const service = c.Config.Labels['com.docker.compose.service'];
      const bindings = Object.values(c.NetworkSettings.Ports ?? {}).flatMap((b) => b ?? []);
      if (service === 'proxy') {
        expect(bindings.map((b) => `${b.HostIp}:${b.HostPort}`).sort()).toEqual(['127.0.0.1:443', '127.0.0.1:8443']);
      } else {
        expect({ service, bindings }).toEqual({ service, bindings: [] });
      }
      expect({ service, memory: c.HostConfig.Memory > 0 }).toEqual({ service, memory: true });
      expect({ service, log: c.HostConfig.LogConfig }).toEqual({
        service,
        log: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '5' } },
      });
    }
  });
});

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePorts } from '../../scripts/free-port';
import { deployLocal, describeDocker, docker, DOCKER, exec, PROJECT, projectContainers, STATE } from './deploy-local';
import { imageHygiene } from './image-hygiene';

// `pnpm deploy:local` end to end, on a real Docker engine (installed and started by the script when none
// answers): every image built, the Compose stack up with migrations first and every service healthy,
// the example plugin's list on the emulator's role, and nothing left after the final down. The script
// checks these itself; this test checks them again from outside, on the stack it keeps (--keep), then
// takes it down (--down) and looks for leftovers.
const GUILD = '1100000000000000001';
const ROLE = '1100000000000000011';
// The example plugin's demo list: 20 consecutive ids from the emulator's first generated member.
const LISTED = Array.from({ length: 20 }, (_, i) => String(100000000000000000n + BigInt(i)));

describeDocker('pnpm deploy:local', () => {
  const ports = { API_PORT: '', DASHBOARD_PORT: '', EMULATOR_PORT: '' };
  let keptCode: number | null = null;

  beforeAll(async () => {
    const keys = Object.keys(ports) as (keyof typeof ports)[];
    const picked = await freePorts(keys.length);
    keys.forEach((key, i) => (ports[key] = String(picked[i])));
    keptCode = await deployLocal(['--keep'], ports);
  });

  afterAll(async () => {
    // Whatever happened above, leave no stack (and no dockerd of the script's) behind.
    if (keptCode !== null) await deployLocal(['--down'], ports);
  });

  test('the script builds every image, starts the stack and proves the main job (exit 0)', () => {
    expect(keptCode).toBe(0);
  });

  test('every image target of the Dockerfile exists', async () => {
    for (const target of ['api', 'plugin-broker', 'bot-worker', 'dashboard', 'migrate', 'cli', 'local-tools']) {
      expect(await docker('image', 'inspect', '--format', '{{.Id}}', `rolelink/${target}:local`)).toMatch(/^sha256:/);
    }
  });

  test("no runtime image carries the build host's CA or corepack override (env, history, files)", async () => {
    const reports = [];
    for (const target of ['api', 'plugin-broker', 'bot-worker', 'dashboard', 'migrate', 'cli'])
      reports.push(await imageHygiene(DOCKER, `rolelink/${target}:local`));
    // Said, not silently passed: with no extra CA on this host the file check has nothing to look for.
    if (!process.env.NODE_EXTRA_CA_CERTS)
      console.warn('image hygiene: NODE_EXTRA_CA_CERTS is unset here, so no build-host CA was looked for in the files');
    else
      console.log(
        `image hygiene: ${reports[0]?.hostOnlyCerts ?? 0} CA(s) of the build host's bundle looked for in every image's files`,
      );
    expect(reports.filter((r) => r.problems.length > 0)).toEqual([]);
  });

  test('migrate ran first and exited 0, and every other container is running and healthy', async () => {
    const containers = await projectContainers();
    const migrate = containers.filter((c) => c.service === 'migrate');
    expect(migrate).toEqual([expect.objectContaining({ status: 'exited', exitCode: 0 })]);
    const services = containers.filter((c) => c.service !== 'migrate' && c.service !== 'cli');
    expect(new Set(services.map((c) => c.service))).toEqual(
      new Set(['postgres', 'redis', 'emulator', 'plugin', 'api', 'plugin-broker', 'bot-worker', 'dashboard']),
    );
    expect(services.filter((c) => c.service === 'bot-worker')).toHaveLength(3);
    // Why a container is not healthy, for whoever reads a failed run: its probes' answers and its last log lines.
    for (const c of services.filter((s) => s.health !== 'healthy')) {
      const logs = await exec(DOCKER, ['logs', '--tail', '40', c.id], { maxBuffer: 16 * 1024 * 1024 }).then(
        (r) => r.stdout + r.stderr,
        (err: Error) => err.message,
      );
      console.warn(
        `${c.service} is ${c.status}/${c.health}\nhealth checks:\n${c.healthLog.join('\n')}\nlast log lines:\n${logs}`,
      );
    }
    for (const c of services)
      expect({ service: c.service, status: c.status, health: c.health }).toEqual({
        service: c.service,
        status: 'running',
        health: 'healthy',
      });
    const migrated = Date.parse(migrate[0]!.finishedAt);
    for (const c of services.filter((s) => ['api', 'plugin-broker', 'bot-worker', 'dashboard'].includes(s.service))) {
      expect(Date.parse(c.startedAt)).toBeGreaterThanOrEqual(migrated);
    }
  });

  test("the API answers on its published port and the plugin's list holds the role on the emulator", async () => {
    expect((await fetch(`http://127.0.0.1:${ports.API_PORT}/readyz`)).status).toBe(200);
    const res = await fetch(`http://127.0.0.1:${ports.EMULATOR_PORT}/_emulator/guilds/${GUILD}/roles/${ROLE}/holders`);
    const { holders } = (await res.json()) as { holders: string[] };
    expect([...holders].sort()).toEqual(LISTED);
  });

  test('down --volumes leaves no container, volume or network, and stops the dockerd the script started', async () => {
    const startedEngine = existsSync(path.join(STATE, 'dockerd.pid'))
      ? Number(readFileSync(path.join(STATE, 'dockerd.pid'), 'utf8'))
      : null;
    // Asked for while the engine still runs, so the checks below can use it; the script stops it last.
    expect(await deployLocal(['--down'], ports)).toBe(0);
    keptCode = null;
    if (startedEngine) {
      expect(() => process.kill(startedEngine, 0)).toThrow();
      return; // no engine any more: nothing of the project can be left in it
    }
    const label = `label=com.docker.compose.project=${PROJECT}`;
    expect(await docker('ps', '-aq', '--filter', label)).toBe('');
    expect(await docker('volume', 'ls', '-q', '--filter', label)).toBe('');
    expect(await docker('network', 'ls', '-q', '--filter', label)).toBe('');
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { groupAlive, spawnGroup, type ManagedProcess } from '../../scripts/local/process-group';
import { allowedPluginHosts, childSpecs, extraCaCerts } from '../../scripts/stack/children';
import { readPorts } from '../../scripts/stack/config';
import { appDatabaseUrl, checkoutTag, stackQueuePrefix } from '../../scripts/stack/database';
import { instanceSuffix, pidsFile, recordChildren, stopLeftovers } from '../../scripts/stack/leftovers';
import { summary, type SummaryInput } from '../../scripts/stack/summary';

// The local stack's per-instance files and the environment it hands its children (scripts/stack.ts):
// no stack is started here, only the pieces that decide what a second stack may touch.
const DEFAULTS = readPorts({});
const OTHER = readPorts({
  API_PORT: '4100',
  DASHBOARD_PORT: '4101',
  BROKER_PORT: '4102',
  WORKER_PORT: '4103',
  EMULATOR_PORT: '4190',
  PLUGIN_PORT: '4143',
});

describe('stack instance files', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-stack-instance-'));
  const procs: ManagedProcess[] = [];
  const sleeper = (marker: string) => {
    const p = spawnGroup(marker, process.execPath, ['-e', 'setInterval(() => {}, 1000)', marker]);
    procs.push(p);
    return p;
  };
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL', 1000)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the plain names on the default ports and names another port set by its hash', () => {
    expect(instanceSuffix(DEFAULTS)).toBe('');
    expect(pidsFile('/d', instanceSuffix(DEFAULTS))).toBe('/d/stack.pids');
    const other = instanceSuffix(OTHER);
    expect(other).toMatch(/^-[0-9a-f]{8}$/);
    expect(instanceSuffix({ ...OTHER })).toBe(other);
    expect(instanceSuffix({ ...OTHER, plugin: 4144 })).not.toBe(other);
    expect(instanceSuffix({ ...DEFAULTS, api: 3100 })).not.toBe('');
  });

  it("stops what a crashed run on the same ports left, and leaves another instance's processes alone", async () => {
    const mine = sleeper('rolelink-leftover-mine');
    const theirs = sleeper('rolelink-leftover-theirs');
    const myFile = pidsFile(dir, instanceSuffix(DEFAULTS));
    const theirFile = pidsFile(dir, instanceSuffix(OTHER));
    // The orchestrator that wrote it is gone (a pid that runs no such command).
    writeFileSync(
      myFile,
      JSON.stringify({
        owner: { name: 'stack', pid: 999_999_999, match: 'scripts/stack.ts' },
        children: [{ name: 'mine', pid: mine.pid, match: 'rolelink-leftover-mine' }],
      }),
    );
    recordChildren(theirFile, [{ name: 'theirs', pid: theirs.pid, match: 'rolelink-leftover-theirs' }]);

    expect(await stopLeftovers(myFile)).toEqual(['mine']);
    await mine.exited;
    expect(groupAlive(theirs.pid)).toBe(true);
    expect((JSON.parse(readFileSync(theirFile, 'utf8')) as { children: unknown }).children).toEqual([
      { name: 'theirs', pid: theirs.pid, match: 'rolelink-leftover-theirs' },
    ]);
  });

  it('refuses, touching nothing, while the stack that recorded the processes still runs', async () => {
    const owner = sleeper('rolelink-live-stack');
    const child = sleeper('rolelink-live-child');
    const file = path.join(dir, 'live.pids');
    const record = {
      owner: { name: 'stack', pid: owner.pid, match: 'rolelink-live-stack' },
      children: [{ name: 'api', pid: child.pid, match: 'rolelink-live-child' }],
    };
    writeFileSync(file, JSON.stringify(record));
    await expect(stopLeftovers(file)).rejects.toThrow(
      `a stack on these ports is already running from this checkout (pid ${owner.pid})`,
    );
    expect(groupAlive(child.pid)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(record);
  });

  it('reads the pids file of a run from before the owner was recorded (a plain array)', async () => {
    const old = sleeper('rolelink-leftover-old');
    const file = path.join(dir, 'old.pids');
    writeFileSync(file, JSON.stringify([{ name: 'old', pid: old.pid, match: 'rolelink-leftover-old' }]));
    expect(await stopLeftovers(file)).toEqual(['old']);
  });
});

describe("the children's plugin settings", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-stack-ca-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the plugin certificate only to the children that call the plugin', () => {
    const specs = childSpecs(DEFAULTS, { seedFile: 's', certFile: 'c', keyFile: 'k', pluginState: 'p' });
    expect(specs.filter((s) => s.trustsPlugin).map((s) => s.key)).toEqual(['plugin-broker']);
    // Every child that calls the plugin starts after it (the stack awaits the plugin's readiness first).
    const plugin = specs.findIndex((s) => s.key === 'plugin');
    specs.forEach((s, i) => s.trustsPlugin && expect(i).toBeGreaterThan(plugin));
  });

  it("adds 127.0.0.1 to the caller's ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS without duplicates", () => {
    expect(allowedPluginHosts(undefined)).toEqual({ value: '127.0.0.1', added: true });
    expect(allowedPluginHosts('')).toEqual({ value: '127.0.0.1', added: true });
    expect(allowedPluginHosts('plugins.internal, 10.0.0.5,plugins.internal')).toEqual({
      value: 'plugins.internal,10.0.0.5,127.0.0.1',
      added: true,
    });
    expect(allowedPluginHosts('10.0.0.5,127.0.0.1')).toEqual({ value: '10.0.0.5,127.0.0.1', added: false });
  });

  it("points at the plugin's certificate, or at a bundle of the caller's file and it", () => {
    const plugin = path.join(dir, 'cert.pem');
    const theirs = path.join(dir, 'corporate-ca.pem');
    const bundle = path.join(dir, 'extra-ca-certs.pem');
    writeFileSync(plugin, '-----BEGIN CERTIFICATE-----\nPLUGIN\n-----END CERTIFICATE-----\n');
    writeFileSync(theirs, '-----BEGIN CERTIFICATE-----\nCORPORATE\n-----END CERTIFICATE-----');

    expect(extraCaCerts(undefined, plugin, bundle).file).toBe(plugin);
    const combined = extraCaCerts(theirs, plugin, bundle);
    expect(combined).toEqual({ file: bundle, note: expect.stringContaining(`combined yours (${theirs})`) });
    expect(readFileSync(bundle, 'utf8')).toBe(
      '-----BEGIN CERTIFICATE-----\nCORPORATE\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nPLUGIN\n-----END CERTIFICATE-----\n',
    );
    const unreadable = extraCaCerts(path.join(dir, 'missing.pem'), plugin, bundle);
    expect(unreadable).toEqual({ file: plugin, note: expect.stringContaining('cannot be read (ENOENT)') });
  });
});

describe("the stack summary's plugin certificate", () => {
  const input = (ports: typeof DEFAULTS, instance: string): SummaryInput => ({
    ports,
    started: new Set(['api', 'plugin']),
    skipped: [],
    databaseUrl: 'postgresql://postgres@127.0.0.1:5432/rolelink',
    databaseEmbedded: false,
    redisUrl: 'redis://127.0.0.1:6379',
    redisEmbedded: false,
    memberCount: 5000,
    demoLink: 'created',
    demoSync: null,
    pluginStateFile: path.join(process.cwd(), '.data', 'plugin-state.json'),
    pluginCertFile: path.join(process.cwd(), '.data', `plugin-tls${instance}`, 'cert.pem'),
    logDir: path.join(process.cwd(), '.data', 'logs'),
    pid: 1,
  });

  it('prints the path on the default ports, and the quickstart command as the docs give it', () => {
    const text = summary(input(DEFAULTS, ''));
    expect(text).toMatch(/^ {2}Plugin certificate {3}\.data\/plugin-tls\/cert\.pem {3}\(key\.pem beside it/m);
    expect(text).toContain('./rolelink plugin check <url> --ca .data/plugin-tls/cert.pem');
    expect(text).toContain(
      'run the quickstart plugin with it: node --import tsx examples/quickstart-plugin/src/main.ts',
    );
    expect(text).toContain(
      'see each event kind reach it: ./rolelink trigger <kind> 1100000000000000001 1100000000000000011 --ca .data/plugin-tls/cert.pem',
    );
  });

  it("prints this instance's folder on other ports, and the quickstart plugin's settings for it", () => {
    const instance = instanceSuffix(OTHER);
    const text = summary(input(OTHER, instance));
    expect(text).toContain(`Plugin certificate   .data/plugin-tls${instance}/cert.pem`);
    expect(text).toContain(
      [
        `     export QUICKSTART_TLS_CERT=.data/plugin-tls${instance}/cert.pem QUICKSTART_TLS_KEY=.data/plugin-tls${instance}/key.pem`,
        `     export ROLELINK_API_URL=http://127.0.0.1:4100 QUICKSTART_PORT=${OTHER.plugin + 1000}`,
        '     node --import tsx examples/quickstart-plugin/src/main.ts',
      ].join('\n'),
    );
    expect(text).toContain(
      `./rolelink trigger <kind> 1100000000000000001 1100000000000000011 --ca .data/plugin-tls${instance}/cert.pem`,
    );
  });
});

describe('a checkout on a shared PostgreSQL and Redis', () => {
  const admin = 'postgresql://postgres@127.0.0.1:5432/postgres';
  const a = checkoutTag('/home/ana/role-link');
  const b = checkoutTag('/home/ana/role-link-review');

  it("uses a database and a queue prefix of its own, named from the checkout's path, where the server is not its own", () => {
    expect(a).toMatch(/^[0-9a-f]{8}$/);
    expect(b).not.toBe(a);
    expect(checkoutTag('/home/ana/role-link')).toBe(a);
    expect(appDatabaseUrl(admin, undefined, a)).toEqual({
      name: `rolelink_${a}`,
      url: `postgresql://postgres@127.0.0.1:5432/rolelink_${a}`,
    });
    expect(appDatabaseUrl(admin, admin, b).name).toBe(`rolelink_${b}`);
    expect(stackQueuePrefix(undefined, a)).toBe(`rolelink-${a}`);
    expect(stackQueuePrefix('', b)).toBe(`rolelink-${b}`);
  });

  it('keeps `rolelink` on its own embedded server and Redis, and what the caller names anywhere', () => {
    expect(appDatabaseUrl(admin, undefined, null).name).toBe('rolelink');
    expect(appDatabaseUrl(admin, 'postgresql://postgres@127.0.0.1:5432/mine', a).name).toBe('mine');
    expect(stackQueuePrefix(undefined, null)).toBe('rolelink');
    expect(stackQueuePrefix('ci-7', a)).toBe('ci-7');
  });
});

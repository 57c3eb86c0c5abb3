// The local stack (README's first command, via scripts/start.sh): PostgreSQL and Redis (found or
// started), migrations, the platform emulator with a demo guild, the example plugin server, then
// plugin-broker, api, bot-worker and dashboard. Prints one summary, then `ready` once every started
// process answers its readiness check. Ctrl-C / SIGTERM stops everything it started, services first.
// With a real platform in the environment (stack/platform.ts) there is no emulator and no demo guild:
// `rolelink doctor` checks the setup first, and a setup that is not ready stops the start with its report.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { QueueName } from '@rolelink/contracts';
import { Producer, producerConnection } from '@rolelink/queue';
import { ensurePostgres, ensureRedis, type Started } from './local-services';
import { spawnGroup, waitUntil, type ManagedProcess } from './local/process-group';
import { PLUGIN_HOST, allowedPluginHosts, childSpecs, extraCaCerts, isBuilt, type ChildSpec } from './stack/children';
import { DEMO, ROOT, demoSeed, readPorts } from './stack/config';
import { appDatabaseUrl, checkoutTag, ensureDatabase, migrate, stackQueuePrefix } from './stack/database';
import { registerDemoLink, waitForDemoSync, type DemoSync } from './stack/demo-link';
import {
  forgetChildren,
  instanceSuffix,
  pidsFile,
  recordChildren,
  stopLeftovers,
  type Recorded,
} from './stack/leftovers';
import { forgetStackEnv, writeStackEnv } from './stack/cli-env';
import { choosePlatform, runDoctor, type Platform } from './stack/platform';
import { checkPortsFree } from './stack/ports';
import { answers200 } from './stack/probes';
import { summary } from './stack/summary';

const log = (m: string): void => {
  process.stdout.write(`› ${m}\n`);
};
const DATA = path.join(ROOT, '.data');
/** The settings `./rolelink` from this checkout reads to reach this stack (scripts/stack/cli-env.ts). */
const STACK_ENV = path.join(DATA, 'stack.env');
// This stack instance's own files, named from its ports in main() (instanceSuffix): a second stack
// from this checkout on other ports neither kills this one's processes nor writes into its logs.
let LOGS = path.join(DATA, 'logs');
let PIDS = pidsFile(DATA, '');

const infra: Started[] = [];
const support: ManagedProcess[] = [];
const services: ManagedProcess[] = [];
const transient = new Set<{ stop(): Promise<unknown> }>();
const recorded: Recorded[] = [];
let stopping: Promise<never> | null = null;

function record(name: string, pid: number | undefined, match: string): void {
  if (!pid || pid <= 0) return;
  recorded.push({ name, pid, match });
  recordChildren(PIDS, recorded);
}

function track(p: { stop(): Promise<unknown> }): () => void {
  transient.add(p);
  return () => transient.delete(p);
}

/** Services first (they finish in-flight work against the databases), then emulator/plugin, then PostgreSQL/Redis. */
function shutdown(code: number): Promise<never> {
  stopping ??= (async () => {
    const anything = infra.length + support.length + services.length + transient.size > 0;
    if (anything) log('stopping…');
    await Promise.all([...transient].map((t) => t.stop().catch(() => undefined)));
    await Promise.all(services.map((p) => p.stop('SIGTERM', 30_000)));
    await Promise.all(support.map((p) => p.stop('SIGTERM', 10_000)));
    for (const s of [...infra].reverse())
      await s.stop().catch((err: unknown) => log(`stopping failed: ${String(err)}`));
    // Only a file this run wrote: a start refused because its ports' stack still runs leaves that one's file.
    if (recorded.length) forgetChildren(PIDS);
    forgetStackEnv(STACK_ENV, process.pid);
    if (anything) log('stopped');
    process.exit(code);
  })();
  return stopping;
}

function installSignalHandlers(): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      log(`${signal}: stopping everything this stack started (Ctrl-C again to force)`);
      void shutdown(0);
    } else {
      log('forcing: killing the service processes now');
      for (const p of [...services, ...support]) p.kill();
    }
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal).on('SIGHUP', onSignal);
  // Last resort if this process dies on an error: no child group outlives it.
  process.on('exit', () => {
    for (const p of [...services, ...support]) if (p.running()) p.kill();
  });
}

/** A development secret made once and kept in .data/<file> (never committed), unless the caller set `envVar`. */
function devSecret(envVar: string, file: string): string {
  const given = process.env[envVar];
  if (given) return given;
  const at = path.join(DATA, file);
  if (!existsSync(at)) {
    writeFileSync(at, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
    log(`generated a development ${envVar} in .data/${file}`);
  }
  return readFileSync(at, 'utf8').trim();
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => `    ${l}`)
      .join('\n');
  } catch {
    return '    (no log)';
  }
}

function startChild(spec: ChildSpec, env: NodeJS.ProcessEnv): ManagedProcess {
  const logFile = path.join(LOGS, `${spec.key}.log`);
  writeFileSync(logFile, `--- ${new Date().toISOString()} ${spec.key} ---\n`);
  const proc = spawnGroup(spec.key, process.execPath, ['--enable-source-maps', '--import', 'tsx', spec.main], {
    cwd: ROOT,
    env: { ...env, ...spec.env },
    logFile,
  });
  void proc.exited.then((exit) => {
    if (stopping) return;
    log(
      `✗ ${spec.label} (${spec.key}) exited unexpectedly (${exit.signal ?? `code ${exit.code}`}); last lines of ${path.relative(process.cwd(), logFile)}:\n${tail(logFile)}`,
    );
    void shutdown(1);
  });
  return proc;
}

async function requestReconcile(redisUrl: string, prefix: string): Promise<void> {
  const redis = producerConnection(redisUrl);
  const producer = new Producer(QueueName.roleSync, redis, prefix);
  try {
    await producer.add('reconcile', {}, { dedup: 'stackStart' });
  } catch (err) {
    log(`could not ask the bot worker for a reconcile: ${(err as Error).message}`);
  } finally {
    await producer.close().catch(() => undefined);
    redis.disconnect();
  }
}

type Ports = ReturnType<typeof readPorts>;
type StackFiles = { seedFile: string; certFile: string; keyFile: string; pluginState: string };

/** This instance's log and pid files, what an earlier run left running stopped, its ports checked free. */
async function prepareInstance(platform: Platform): Promise<{ ports: Ports; instance: string }> {
  const ports = readPorts(process.env);
  const instance = instanceSuffix(ports);
  LOGS = path.join(DATA, `logs${instance}`);
  PIDS = pidsFile(DATA, instance);
  mkdirSync(LOGS, { recursive: true });
  const leftovers = await stopLeftovers(PIDS);
  if (leftovers.length) log(`stopped what an earlier run left running: ${leftovers.join(', ')}`);
  // No emulator runs on a real platform: its port may be anything's (even the emulator posing as a platform).
  await checkPortsFree(ports, platform.kind === 'real' ? ['emulator'] : []);
  installSignalHandlers();
  return { ports, instance };
}

/** PostgreSQL and Redis (found or started), the application database, migrations applied. */
async function startDatabases() {
  const pg = await ensurePostgres({ log });
  infra.push(pg);
  record('postgres', pg.pid, path.join(DATA, 'postgres'));
  const redis = await ensureRedis({ log });
  infra.push(redis);
  record('redis', redis.pid, `127.0.0.1:${new URL(redis.url).port}`);
  // The embedded server is this checkout's own (.data/postgres); any other may be another checkout's too.
  const db = appDatabaseUrl(pg.adminUrl, process.env.DATABASE_URL, pg.embedded ? null : checkoutTag(ROOT));
  await ensureDatabase(pg.adminUrl, db.name, log);
  await migrate(db.url, ROOT, log, track);
  return { pg, redis, db };
}

/** The emulator's seed file and where the plugin keeps its certificate and state. */
function stackFiles(instance: string, memberCount: number): StackFiles {
  const seedFile = path.join(DATA, 'emulator-seed.json');
  writeFileSync(seedFile, JSON.stringify(demoSeed(memberCount)));
  return {
    seedFile,
    // Per instance: the plugin writes a new certificate at every start, which this stack's broker must trust.
    certFile: path.join(DATA, `plugin-tls${instance}`, 'cert.pem'),
    keyFile: path.join(DATA, `plugin-tls${instance}`, 'key.pem'),
    pluginState: path.join(DATA, 'plugin-state.json'),
  };
}

/** The environment every child starts with. */
function childEnv(
  ports: Ports,
  databaseUrl: string,
  redis: { url: string; embedded: boolean },
  platform: Platform,
): NodeJS.ProcessEnv {
  // Added to what the caller set, never instead of it.
  const givenHosts = process.env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS;
  const allowedHosts = allowedPluginHosts(givenHosts);
  const combinedHosts = givenHosts
    ? allowedHosts.added
      ? ` (${PLUGIN_HOST} added to yours: ${givenHosts})`
      : ` (yours, which has ${PLUGIN_HOST} already)`
    : '';
  log(
    `warning: ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS=${allowedHosts.value}${combinedHosts} so the services accept the example plugin on loopback; never set it in production`,
  );
  return {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: stackQueuePrefix(process.env.QUEUE_PREFIX, redis.embedded ? null : checkoutTag(ROOT)),
    ROLELINK_SECRET_KEY: devSecret('ROLELINK_SECRET_KEY', 'secret-key'),
    DASHBOARD_SESSION_SECRET: devSecret('DASHBOARD_SESSION_SECRET', 'session-secret'),
    // The broker's internal routes and their callers (dashboard; the CLI with the same value from .data).
    BROKER_INTERNAL_TOKEN: devSecret('BROKER_INTERNAL_TOKEN', 'broker-internal-token'),
    BROKER_URL: `http://127.0.0.1:${ports.broker}`,
    ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: allowedHosts.value,
    ...(platform.kind === 'real'
      ? { PLATFORM_API_URL: platform.apiUrl, PLATFORM_BOT_TOKEN: platform.botToken }
      : { PLATFORM_API_URL: `http://127.0.0.1:${ports.emulator}/api`, PLATFORM_BOT_TOKEN: DEMO.botToken }),
  };
}

/** Resolves once the child answers its readiness check; rejects if it exits or the stack stops first. */
function readiness(spec: ChildSpec, proc: ManagedProcess, ports: Ports, files: StackFiles): Promise<void> {
  const scheme = spec.https ? 'https' : 'http';
  const ca = spec.https
    ? () => (existsSync(files.certFile) ? readFileSync(files.certFile, 'utf8') : undefined)
    : () => undefined;
  return waitUntil(() => answers200(`${scheme}://127.0.0.1:${ports[spec.port]}${spec.readyPath}`, ca())(), {
    timeoutMs: 120_000,
    intervalMs: 250,
    abort: () => (stopping ? 'stopping' : proc.running() ? null : `${spec.key} exited`),
  }).then(
    () => log(`${spec.label} ready on ${scheme}://127.0.0.1:${ports[spec.port]}`),
    (err: Error) => {
      throw new Error(
        `${spec.label} did not become ready (${scheme}://127.0.0.1:${ports[spec.port]}${spec.readyPath}): ${err.message}; see ${path.relative(ROOT, LOGS)}/${spec.key}.log`,
      );
    },
  );
}

/** Emulator, plugin, then the services (in childSpecs' order); resolves when every started one is ready. */
async function startChildren(
  ports: Ports,
  instance: string,
  files: StackFiles,
  baseEnv: NodeJS.ProcessEnv,
  memberCount: number,
  platform: Platform,
) {
  const started = new Set<string>();
  const skipped: string[] = [];
  const waits: Promise<void>[] = [];
  // NODE_EXTRA_CA_CERTS goes only to the children that call the plugin (spec.trustsPlugin), which start
  // after it is ready: Node reads the file at start and warns in the log of any process started before
  // the plugin wrote it. Made once, after the plugin wrote this start's certificate.
  let pluginTrustEnv: NodeJS.ProcessEnv | undefined;
  const envFor = (spec: ChildSpec): NodeJS.ProcessEnv => {
    if (!spec.trustsPlugin || !started.has('plugin')) return baseEnv;
    if (!pluginTrustEnv) {
      const ca = extraCaCerts(
        process.env.NODE_EXTRA_CA_CERTS,
        files.certFile,
        path.join(DATA, `extra-ca-certs${instance}.pem`),
      );
      log(ca.note);
      pluginTrustEnv = { ...baseEnv, NODE_EXTRA_CA_CERTS: ca.file };
    }
    return pluginTrustEnv;
  };
  for (const spec of childSpecs(ports, files, platform)) {
    if (!isBuilt(spec)) {
      skipped.push(spec.key);
      log(`${spec.label}: not built yet (${spec.main} does not exist), skipped`);
      continue;
    }
    if (spec.key === 'emulator')
      log(
        `seeding the platform emulator: demo guild ${DEMO.guildId} with ${memberCount.toLocaleString('en')} members…`,
      );
    const proc = startChild(spec, envFor(spec));
    record(spec.key, proc.pid, spec.main);
    (spec.key === 'emulator' || spec.key === 'plugin' ? support : services).push(proc);
    started.add(spec.key);
    const ready = readiness(spec, proc, ports, files);
    // The emulator and the plugin come first: the services need the emulator, and the plugin's
    // certificate file must exist before they start (NODE_EXTRA_CA_CERTS is read at process start).
    if (spec.key === 'emulator' || spec.key === 'plugin') await ready;
    else waits.push(ready);
  }
  await Promise.all(waits);
  return { started, skipped };
}

/** Registers the demo link with the CLI and, when the bot worker runs, waits for its first sync. */
async function demoLinkStep(
  ports: Ports,
  started: Set<string>,
  baseEnv: NodeJS.ProcessEnv,
): Promise<{ demoLink: string; demoSync: DemoSync | null }> {
  if (!(started.has('plugin') && started.has('api') && started.has('plugin-broker'))) {
    return { demoLink: 'not created: the plugin broker or api is not built yet', demoSync: null };
  }
  log('registering the demo link with the rolelink CLI (./rolelink)…');
  const since = Date.now();
  const outcome = await registerDemoLink(`https://127.0.0.1:${ports.plugin}`, { env: baseEnv, log, track });
  let demoSync: DemoSync | null = null;
  if (!outcome.ok) log(`demo link: ${outcome.line}`);
  // `ready` means the demo list is on the role, so the summary's first GET and holders call show it.
  else if (started.has('bot-worker') && started.has('emulator')) {
    log("waiting for the demo list's first sync (up to 60 s)…");
    demoSync = await waitForDemoSync(`http://127.0.0.1:${ports.emulator}`, {
      env: baseEnv,
      log,
      track,
      since,
      stopped: () => stopping !== null,
    });
  }
  return { demoLink: outcome.line, demoSync };
}

/** On a real platform: `rolelink doctor` before any service starts; a setup that is not ready stops the start. */
async function doctorStep(platform: Platform, baseEnv: NodeJS.ProcessEnv): Promise<string | null> {
  if (platform.kind !== 'real') return null;
  log(
    `checking the platform at ${platform.apiUrl} with rolelink doctor${platform.guildId ? ` ${platform.guildId}` : ''}…`,
  );
  const { code, report } = await runDoctor(baseEnv, platform.guildId);
  const indented = report
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  process.stdout.write(`${indented}\n`);
  if (code !== 0)
    throw new Error(
      `rolelink doctor says the setup is not ready (above, each ✗ with its fix); nothing was started against ${platform.apiUrl}. Fix it and start again (docs/real-platform.md).`,
    );
  return report;
}

async function main(): Promise<void> {
  const platform = choosePlatform(process.env);
  const { ports, instance } = await prepareInstance(platform);
  const { pg, redis, db } = await startDatabases();
  const memberCount = Number(process.env.DEMO_MEMBERS ?? 3000);
  const files = stackFiles(instance, memberCount);
  const baseEnv = childEnv(ports, db.url, redis, platform);
  await doctorStep(platform, baseEnv);
  writeStackEnv(STACK_ENV, baseEnv, process.pid);
  const { started, skipped } = await startChildren(ports, instance, files, baseEnv, memberCount, platform);

  // The emulator keeps roles in memory: after a restart it has forgotten what the bot applied in an
  // earlier run (the database remembers). A reconcile now makes the platform match the lists again.
  if (started.has('bot-worker') && started.has('emulator'))
    await requestReconcile(redis.url, baseEnv.QUEUE_PREFIX ?? 'rolelink');
  // A real platform's guilds are the user's own: no demo link is made there.
  const { demoLink, demoSync } =
    platform.kind === 'real'
      ? { demoLink: 'none on a real platform', demoSync: null }
      : await demoLinkStep(ports, started, baseEnv);

  process.stdout.write(
    summary({
      ports,
      started,
      skipped,
      databaseUrl: db.url,
      databaseEmbedded: pg.embedded,
      redisUrl: redis.url,
      redisEmbedded: redis.embedded,
      memberCount,
      demoLink,
      demoSync,
      pluginStateFile: files.pluginState,
      pluginCertFile: files.certFile,
      logDir: LOGS,
      pid: process.pid,
      platform,
    }) + '\n',
  );
  process.stdout.write('ready\n');
}

main().catch((err: unknown) => {
  if (stopping) return;
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(
    message
      .split('\n')
      .map((l) => `✗ ${l}\n`)
      .join(''),
  );
  void shutdown(1);
});

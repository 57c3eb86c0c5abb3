// `pnpm bench startup`: start-up time until /readyz answers 200 and idle RSS of every service
// from source under tsx and compiled (`pnpm build`), then the size of each production image's contents
// as far as it can be measured without a Docker engine (`pnpm deploy --prod` of the deployable plus
// dist/). Every figure is printed beside its goal in the same run; the exit code is 0 either way.
//   pnpm bench startup [--rounds 5] [--idle-ms 3000] [--only start|size|node]
//                      [--node-compare /usr/bin/node]   the compiled services on the pinned Node.js against
//                                                       another binary (the machine's own by default), alternately
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { admin, createMigratedDb, REDIS_URL } from './support/bench-db';
import { productionEnv, ROOT, SERVICES, startService, type Form, type ServiceName } from '../scripts/service-process';

const BENCH_DB = 'rolelink_bench_startup';
const START_GOAL_MS = 1000;
const RSS_CUT_GOAL = 0.3;
const MiB = 1024 * 1024;

const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => os.loadavg()[0]!.toFixed(2);

type Row = { figure: string; measured: string; goal: string; verdict: 'PASS' | 'FAIL' | 'info' };

function printRows(rows: Row[]): void {
  const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => [r.figure, r.measured, r.goal][i]!.length)));
  for (const r of rows)
    console.log(`${r.figure.padEnd(w[0]!)}  ${r.measured.padEnd(w[1]!)}  ${r.goal.padEnd(w[2]!)}  ${r.verdict}`);
}

type Variant = { label: string; form: Form; node?: string };
type Samples = Map<string, { start: number[]; cpu: number[]; rss: number[] }>;

/**
 * Each round starts every service in each variant one after the other, reversing the order every other
 * round (ABBA, so load hits all alike). The compiled form runs from each image's tree (scripts/image-tree.sh)
 * with the image's command. Samples are keyed `<service> <variant label>`.
 */
async function sampleStarts(variants: Variant[], rounds: number, idleMs: number): Promise<Samples> {
  await admin(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
  const url = await createMigratedDb(BENCH_DB);
  const env = productionEnv(url, REDIS_URL, `bench-startup-${process.pid}`);
  const samples: Samples = new Map();
  const trees = mkdtempSync(path.join(os.tmpdir(), 'rolelink-trees-'));
  for (const name of SERVICE_NAMES) imageTree(`@rolelink/${name}`, path.join(trees, name));
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const name of SERVICE_NAMES) {
        for (const v of round % 2 ? variants : [...variants].reverse()) {
          const packageDir = v.form === 'compiled' ? path.join(trees, name) : undefined;
          const s = await startService(name, v.form, env, { packageDir, node: v.node });
          // Idle RSS: after start-up work settles (connections open, first timers run).
          await new Promise((r) => setTimeout(r, idleMs));
          const rss = s.rss();
          await s.stop();
          const key = `${name} ${v.label}`;
          const got = samples.get(key) ?? { start: [], cpu: [], rss: [] };
          got.start.push(s.startMs);
          got.cpu.push(s.startCpuMs);
          got.rss.push(rss);
          samples.set(key, got);
          console.log(
            `round ${round} ${key.padEnd(24)} ready in ${s.startMs.toFixed(0).padStart(5)} ms (CPU ${s.startCpuMs.toFixed(0).padStart(4)} ms), idle RSS ${(rss / MiB).toFixed(1)} MiB (load ${load()})`,
          );
        }
      }
    }
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
    rmSync(trees, { recursive: true, force: true });
  }
  return samples;
}

async function startFigures(rounds: number, idleMs: number): Promise<Row[]> {
  const names = SERVICE_NAMES;
  const variants: Variant[] = [
    { label: 'tsx', form: 'tsx' },
    { label: 'compiled', form: 'compiled' },
  ];
  const samples = await sampleStarts(variants, rounds, idleMs);
  const rows: Row[] = [];
  for (const name of names) {
    const tsx = samples.get(`${name} tsx`)!;
    const compiled = samples.get(`${name} compiled`)!;
    const startC = median(compiled.start);
    const rssT = median(tsx.rss);
    const rssC = median(compiled.rss);
    const cut = 1 - rssC / rssT;
    rows.push(
      {
        figure: `${name}: start to /readyz 200, tsx (median of ${rounds})`,
        measured: `${median(tsx.start).toFixed(0)} ms, CPU ${median(tsx.cpu).toFixed(0)} ms (${tsx.start.map((x) => x.toFixed(0)).join(', ')})`,
        goal: 'reported',
        verdict: 'info',
      },
      {
        figure: `${name}: start to /readyz 200, compiled (median of ${rounds})`,
        measured: `${startC.toFixed(0)} ms, CPU ${median(compiled.cpu).toFixed(0)} ms (${compiled.start.map((x) => x.toFixed(0)).join(', ')})`,
        goal: `≤ ${START_GOAL_MS} ms`,
        verdict: startC <= START_GOAL_MS ? 'PASS' : 'FAIL',
      },
      {
        figure: `${name}: idle RSS tsx → compiled (medians)`,
        measured: `${(rssT / MiB).toFixed(1)} → ${(rssC / MiB).toFixed(1)} MiB (${(cut * 100).toFixed(0)}% lower)`,
        goal: `≥ ${RSS_CUT_GOAL * 100}% lower`,
        verdict: cut >= RSS_CUT_GOAL ? 'PASS' : 'FAIL',
      },
    );
  }
  return rows;
}

/**
 * The pinned runtime against another Node.js binary (the machine's own, e.g. Node 20), same run: each round
 * starts every compiled service on both binaries, alternating which goes first, from the same image trees.
 */
async function nodeFigures(rounds: number, idleMs: number, other: string): Promise<Row[]> {
  const version = (bin: string) => execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  const pinned = { label: version(process.execPath), form: 'compiled' as const, node: process.execPath };
  const compared = { label: version(other), form: 'compiled' as const, node: other };
  if (pinned.label === compared.label) return [];
  const names = SERVICE_NAMES;
  const samples = await sampleStarts([pinned, compared], rounds, idleMs);
  return names.flatMap((name) => {
    const a = samples.get(`${name} ${pinned.label}`)!;
    const b = samples.get(`${name} ${compared.label}`)!;
    return [
      {
        figure: `${name}: start to /readyz 200, ${pinned.label} ÷ ${compared.label} (medians of ${rounds})`,
        measured: `${median(a.start).toFixed(0)} ÷ ${median(b.start).toFixed(0)} ms = ${(median(a.start) / median(b.start)).toFixed(2)}`,
        goal: 'reported',
        verdict: 'info' as const,
      },
      {
        figure: `${name}: idle RSS, ${pinned.label} ÷ ${compared.label} (medians)`,
        measured: `${(median(a.rss) / MiB).toFixed(1)} ÷ ${(median(b.rss) / MiB).toFixed(1)} MiB = ${(median(a.rss) / median(b.rss)).toFixed(2)}`,
        goal: 'reported',
        verdict: 'info' as const,
      },
    ];
  });
}

/** What an image's /app holds for one package (scripts/image-tree.sh, which the Dockerfile runs too). */
function imageTree(pkg: string, out: string): void {
  execFileSync('bash', [path.join(ROOT, 'scripts/image-tree.sh'), pkg, out], { cwd: ROOT, stdio: 'pipe' });
}

/** Apparent size in bytes (du counts a hard-linked file once). */
function duBytes(dir: string, exclude: string[] = []): number {
  const out = execFileSync('du', ['-sb', ...exclude.map((e) => `--exclude=${e}`), dir], { encoding: 'utf8' });
  return Number(out.split('\t')[0]);
}

/**
 * What each image's /app holds: scripts/image-tree.sh of the deployable's package (its production
 * dependencies less their source maps, and its `files`: dist/, and the dashboard's web/dist), plus
 * prisma/ for the migrate image.
 */
function sizeFigures(): Row[] {
  const deployables: { image: string; filter: string; extra?: string }[] = [
    { image: 'api', filter: '@rolelink/api' },
    { image: 'plugin-broker', filter: '@rolelink/plugin-broker' },
    { image: 'bot-worker', filter: '@rolelink/bot-worker' },
    { image: 'dashboard', filter: '@rolelink/dashboard' },
    { image: 'migrate', filter: '@rolelink/migrate', extra: 'prisma' },
    { image: 'cli (the bin)', filter: '@rolelink/cli' },
  ];
  const rows: Row[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-deploy-'));
  try {
    for (const d of deployables) {
      const out = path.join(tmp, d.image.split(' ')[0]!);
      imageTree(d.filter, out);
      const deps = duBytes(path.join(out, 'node_modules'));
      const total = duBytes(out) + (d.extra ? duBytes(path.join(ROOT, d.extra)) : 0);
      rows.push({
        figure: `image ${d.image}: production dependencies + dist/`,
        measured: `${(total / 1e6).toFixed(1)} MB (node_modules ${(deps / 1e6).toFixed(1)} MB)`,
        goal: 'reported',
        verdict: 'info',
      });
      console.log(`deployed ${d.filter} to measure it (load ${load()})`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // What every image copied before this build: the whole workspace install (development dependencies
  // included) and the sources, less what the old Dockerfile removed.
  const before = duBytes(ROOT, ['.git', '.data', '.bench', 'dist', 'test', 'bench', 'docs', 'k8s']);
  rows.push({
    figure: 'before: the whole workspace install each tsx image copied',
    measured: `${(before / 1e6).toFixed(1)} MB`,
    goal: 'reported',
    verdict: 'info',
  });
  return rows;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      rounds: { type: 'string', default: '5' },
      'idle-ms': { type: 'string', default: '3000' },
      only: { type: 'string' },
      'node-compare': { type: 'string', default: '/usr/bin/node' },
    },
  });
  console.log(`pnpm bench startup on ${os.cpus().length} cores, load ${load()}, ${new Date().toISOString()}`);
  // Figures are for the current sources: build first (seconds); the dashboard image holds web/dist too.
  execFileSync('pnpm', ['build'], { cwd: ROOT, stdio: 'inherit' });
  const rows: Row[] = [];
  const rounds = Number(values.rounds);
  const idleMs = Number(values['idle-ms']);
  if (!values.only || values.only === 'start') rows.push(...(await startFigures(rounds, idleMs)));
  if (!values.only || values.only === 'node') rows.push(...(await nodeFigures(rounds, idleMs, values['node-compare'])));
  if (!values.only || values.only === 'size') rows.push(...sizeFigures());
  console.log('');
  printRows(rows);
}

// `pnpm bench startup` (issue 12): start-up time until /readyz answers 200 and idle RSS of every service
// from source under tsx and compiled (`pnpm build`), then the size of each production image's contents
// as far as it can be measured without a Docker engine (`pnpm deploy --prod` of the deployable plus
// dist/). Every figure is printed beside its goal in the same run; the exit code is 0 either way.
//   pnpm bench startup [--rounds 5] [--idle-ms 3000] [--only start|size]
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => os.loadavg()[0]!.toFixed(2);

type Row = { figure: string; measured: string; goal: string; verdict: 'PASS' | 'FAIL' | 'info' };

function printRows(rows: Row[]): void {
  const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => [r.figure, r.measured, r.goal][i]!.length)));
  for (const r of rows)
    console.log(`${r.figure.padEnd(w[0]!)}  ${r.measured.padEnd(w[1]!)}  ${r.goal.padEnd(w[2]!)}  ${r.verdict}`);
}

/** Each round starts every service in both forms one after the other (alternating, so load hits both). */
async function startFigures(rounds: number, idleMs: number): Promise<Row[]> {
  await admin(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
  const url = await createMigratedDb(BENCH_DB);
  const env = productionEnv(url, REDIS_URL, `bench-startup-${process.pid}`);
  const names = Object.keys(SERVICES) as ServiceName[];
  const samples = new Map<string, { start: number[]; cpu: number[]; rss: number[] }>();
  // The compiled form runs from each image's tree (scripts/image-tree.sh) with the image's command.
  const trees = mkdtempSync(path.join(os.tmpdir(), 'rolelink-trees-'));
  for (const name of names) imageTree(`@rolelink/${name}`, path.join(trees, name));
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const name of names) {
        const forms: Form[] = round % 2 ? ['tsx', 'compiled'] : ['compiled', 'tsx'];
        for (const form of forms) {
          const s = await startService(
            name,
            form,
            env,
            form === 'compiled' ? { packageDir: path.join(trees, name) } : {},
          );
          // Idle RSS: after start-up work settles (connections open, first timers run).
          await new Promise((r) => setTimeout(r, idleMs));
          const rss = s.rss();
          await s.stop();
          const key = `${name} ${form}`;
          const got = samples.get(key) ?? { start: [], cpu: [], rss: [] };
          got.start.push(s.startMs);
          got.cpu.push(s.startCpuMs);
          got.rss.push(rss);
          samples.set(key, got);
          console.log(
            `round ${round} ${key.padEnd(22)} ready in ${s.startMs.toFixed(0).padStart(5)} ms (CPU ${s.startCpuMs.toFixed(0).padStart(4)} ms), idle RSS ${(rss / MiB).toFixed(1)} MiB (load ${load()})`,
          );
        }
      }
    }
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
    rmSync(trees, { recursive: true, force: true });
  }
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
    },
  });
  console.log(`pnpm bench startup on ${os.cpus().length} cores, load ${load()}, ${new Date().toISOString()}`);
  // Figures are for the current sources: build first (seconds); the dashboard image holds web/dist too.
  execFileSync('pnpm', ['build'], { cwd: ROOT, stdio: 'inherit' });
  const rows: Row[] = [];
  if (values.only !== 'size') rows.push(...(await startFigures(Number(values.rounds), Number(values['idle-ms']))));
  if (values.only !== 'start') rows.push(...sizeFigures());
  console.log('');
  printRows(rows);
}

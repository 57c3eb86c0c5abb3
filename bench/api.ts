// `pnpm bench api [--quick] [--all] [--only put,upload,sdk,get,post,post-limit] [--ids N] [--runs 7] [--post-seconds 10] [--post-limit-control] [--keep-db] [--api-cpu-prof DIR] [--form compiled|tsx]`:
// the User Management API's figures, each printed beside its same-run limit: PUT ÷ a
// raw PostgreSQL replace of the same list (both tables vacuumed), GET ÷ a raw COPY of the same list, POST ÷ a bare node:http server
// doing the same write. Default: put, get (3M IDs), post — a few minutes. `--quick`: the same at 300k IDs
// with shorter rounds. `--all`: also the 30M upload, the SDK upload and the limiter's cost, at 30M IDs
// (about half an hour). The API runs as a real separate process, compiled as the image runs it (`--form tsx`:
// from source; bench/support/api-process.ts), over a scratch database
// (`rolelink_bench_api_<random>`, created and dropped) and a queue prefix of its own. Exit code 0 whatever the
// figures say (it is a benchmark); a missed limit prints FAIL.
import { randomBytes } from 'node:crypto';
import { statfsSync } from 'node:fs';
import os from 'node:os';
import { Pool } from 'pg';
import { BENCH_DB, dropBenchDb, createBenchDb, REDIS_URL, seedGuild } from './support/api-db';
import { dropPrefix } from '../test/support/redis';
import {
  figureGet,
  figurePut,
  figureUpload,
  seedBigList,
  type Ctx,
  type Row,
  type UploadTiming,
} from './support/api-figures';
import { figurePost } from './support/api-post';
import { figureSdkUpload } from './support/api-sdk-upload';
import { figurePostRateLimit, UNREACHED_LIMIT } from './support/api-rate-limit';
import { startApi, type RunForm, type RunningApi } from './support/api-process';
import type { BenchLink } from './support/api-db';

const FIGURES = ['put', 'upload', 'sdk', 'get', 'post', 'post-limit'] as const;
type Figure = (typeof FIGURES)[number];
const ALIASES: Record<string, Figure> = {
  put: 'put',
  upload: 'upload',
  chunks: 'upload',
  commit: 'upload',
  sdk: 'sdk',
  get: 'get',
  post: 'post',
  'post-limit': 'post-limit',
};

type Options = {
  only: Set<Figure>;
  ids: number;
  runs: number;
  postSeconds: number;
  postLimitControl: boolean;
  keepDb: boolean;
  cpuProfDir?: string;
  form: RunForm;
};

/** The default run: every figure with a same-run limit, at a scale that finishes in a few minutes. */
const DEFAULT_FIGURES: Figure[] = ['put', 'get', 'post'];

function parseArgs(args: string[]): Options {
  const o: Options = {
    only: new Set(DEFAULT_FIGURES),
    ids: 3_000_000,
    runs: 7,
    postSeconds: 10,
    postLimitControl: false,
    keepDb: false,
    form: 'compiled',
  };
  // Presets first, so explicit flags after them win whatever their order on the command line.
  if (args.includes('--all')) Object.assign(o, { only: new Set(FIGURES), ids: 30_000_000 });
  if (args.includes('--quick')) Object.assign(o, { ids: 300_000, runs: 3, postSeconds: 5 });
  const num = (v: string | undefined, name: string, min: number, max: number) => {
    const n = Number(v?.replaceAll('_', ''));
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} takes an integer from ${min} to ${max}`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? args[++i];
    if (flag === '--all' || flag === '--quick') continue;
    if (flag === '--only') {
      o.only = new Set(
        (value() ?? '')
          .split(',')
          .filter(Boolean)
          .map((f) => {
            const fig = ALIASES[f.trim()];
            if (!fig) throw new Error(`--only: unknown figure "${f}" (one of ${FIGURES.join(', ')})`);
            return fig;
          }),
      );
    } else if (flag === '--ids') o.ids = num(value(), '--ids', 100_000, 30_000_000);
    else if (flag === '--runs') o.runs = num(value(), '--runs', 1, 51);
    else if (flag === '--post-seconds') o.postSeconds = num(value(), '--post-seconds', 1, 600);
    // post-limit with the limiter off on both sides: the figure's noise floor (docs/benchmarks.md).
    else if (flag === '--post-limit-control') o.postLimitControl = true;
    else if (flag === '--keep-db') o.keepDb = true;
    else if (flag === '--api-cpu-prof') o.cpuProfDir = value();
    else if (flag === '--form') {
      const form = value();
      if (form !== 'compiled' && form !== 'tsx')
        throw new Error(
          "--form takes compiled (the image's bundle and node options, the default) or tsx (from source)",
        );
      o.form = form;
    } else
      throw new Error(
        `unknown argument ${a}\nusage: pnpm bench api [--quick] [--all] [--only ${FIGURES.join(',')}] [--ids N] [--runs 7] [--post-seconds 10] [--post-limit-control] [--keep-db] [--api-cpu-prof DIR] [--form compiled|tsx]`,
      );
  }
  // The SDK figure is a ratio to the raw upload of the same run.
  if (o.only.has('sdk')) o.only.add('upload');
  return o;
}

function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function table(rows: Row[]): string[] {
  const head = ['figure', 'measured', 'limit', 'result'];
  const cells = rows.map((r) => [r.figure, r.measured, r.limit, r.verdict === 'FAIL' ? '**FAIL**' : r.verdict]);
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...cells.map((c) => `| ${c.join(' | ')} |`),
  ];
}

/** Free bytes on the file system of a path, or null when it is not visible from here. */
function freeBytes(path: string): number | null {
  try {
    const st = statfsSync(path);
    return st.bavail * st.bsize;
  } catch {
    return null;
  }
}

export async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  log(
    `api bench: figures ${[...opts.only].join(',')}, ${opts.ids.toLocaleString('en-US')} IDs, ${os.cpus().length} cores, load ${load()}`,
  );

  const url = await createBenchDb();
  const prefix = `rlbench-api-${randomBytes(4).toString('hex')}`;
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  let api: RunningApi | null = null;
  const rows: Row[] = [];
  const started = new Date();
  let pgVersion: string;
  try {
    const settings = await pool.query<{ v: string; dir: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('data_directory') AS dir",
    );
    pgVersion = settings.rows[0]!.v.split(' ')[0]!;
    // Staging + list + the raw baseline's copy + WAL, generously: ~300 bytes per ID.
    const needs =
      (opts.only.has('upload') || opts.only.has('get') ? opts.ids * 300 : 1e9) * (opts.only.has('sdk') ? 2 : 1);
    const free = freeBytes(settings.rows[0]!.dir) ?? freeBytes('/');
    log(
      `disk: ${free === null ? '?' : (free / 1e9).toFixed(0)} GB free for PostgreSQL (${freeBytes('/work') === null ? '?' : (freeBytes('/work')! / 1e9).toFixed(0)} GB on /work); this run needs about ${(needs / 1e9).toFixed(0)} GB`,
    );
    if (free !== null && free < needs) throw new Error('not enough free disk for this scale; try a smaller --ids');

    // The limiter is on, as in production, with a limit no figure reaches: every figure pays its cost
    // (one Redis round trip per request) and none is refused; post-limit compares against it off.
    const apiEnv = {
      DATABASE_URL: url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      API_RATE_LIMIT: 'on',
      API_RATE_LIMIT_PREMIUM: UNREACHED_LIMIT,
    };
    api = await startApi(apiEnv, { cpuProfDir: opts.cpuProfDir, form: opts.form });
    log(`api: ${opts.form}, pid ${api.pid} on ${api.origin}, database ${BENCH_DB}, queue prefix ${prefix}`);
    const guildId = await seedGuild(pool, 'premium');
    const ctx: Ctx = { api, form: opts.form, databaseUrl: url, pool, guildId, rows, log };
    // A figure that breaks is reported as FAIL with its error; the others still run.
    const attempt = async (name: string, fn: () => Promise<void>) => {
      log(`${name}: start (load ${load()})`);
      try {
        await fn();
      } catch (err) {
        log(`${name}: ERROR ${(err as Error).stack ?? String(err)}`);
        rows.push({
          figure: `${name}: did not complete`,
          measured: (err as Error).message.slice(0, 200),
          limit: '—',
          verdict: 'FAIL',
        });
      }
    };
    let big: BenchLink | null = null;
    let upload: UploadTiming | null = null;
    if (opts.only.has('put')) await attempt('put', () => figurePut(ctx, opts.runs));
    if (opts.only.has('upload'))
      await attempt('upload', async () => void ({ link: big } = upload = await figureUpload(ctx, opts.ids)));
    if (opts.only.has('sdk') && upload) await attempt('sdk', () => figureSdkUpload(ctx, opts.ids, upload!));
    if (opts.only.has('get')) {
      if (big) await attempt('get (fresh)', () => figureGet(ctx, big!, opts.ids, { fresh: true }));
      await attempt('get', async () => {
        big ??= await seedBigList(ctx, opts.ids);
        // Settle what the previous figure left (staged rows the API's GC would delete in the background,
        // autovacuum's first pass over the new rows), so it does not run inside this figure (untimed).
        await pool.query('TRUNCATE upload_staged');
        await pool.query('VACUUM ANALYZE link_user');
        await pool.query('CHECKPOINT');
        await figureGet(ctx, big, opts.ids);
      });
    }
    if (opts.only.has('post')) await attempt('post', () => figurePost(ctx, opts.postSeconds));
    if (opts.only.has('post-limit'))
      await attempt('post-limit', () =>
        figurePostRateLimit(ctx, apiEnv, opts.postSeconds, { control: opts.postLimitControl }),
      );
  } finally {
    await api?.stop();
    await pool.end();
    if (!opts.keepDb)
      await dropBenchDb().catch((e: unknown) => log(`could not drop ${BENCH_DB}: ${(e as Error).message}`));
    await dropPrefix(prefix, REDIS_URL).catch(() => undefined); // Redis gone: nothing to clean
  }

  const lines = [
    '',
    `pnpm bench api ${args.join(' ')}`.trim(),
    `${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ` +
      `PostgreSQL ${pgVersion}, load at end ${load()}`,
    '',
    ...table(rows),
    '',
  ];
  console.log(lines.join('\n'));
  const failed = rows.filter((r) => r.verdict === 'FAIL');
  console.log(
    failed.length
      ? `FAIL: ${failed.length} figure(s) missed their limit: ${failed.map((r) => r.figure).join('; ')}`
      : 'all figures within their limits',
  );
}

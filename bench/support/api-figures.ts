// The four figures of `pnpm bench api`: each measures the API process against its limit and,
// where its goal names one, a raw PostgreSQL baseline on the same data in the same run.
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import autocannon from 'autocannon';
import type { Pool } from 'pg';
import { seedLink, type BenchLink } from './api-db';
import { RssWindow, type RunForm, type RunningApi } from './api-process';
import { call, expectOk, makeAgent } from '../../scripts/support/http';
import { ID_DIGITS, idArray, idSql, jsonIds } from './ids';
import { copyIn, fromStored, toStored } from '@rolelink/db/client';
import { storedIdsCopy } from '@rolelink/db/list';

export type Verdict = 'PASS' | 'FAIL' | 'info';
export type Row = { figure: string; measured: string; limit: string; verdict: Verdict };

export type Ctx = {
  api: RunningApi;
  /** How the API runs (compiled, as the image runs it, or from source); the bare POST server runs the same way. */
  form: RunForm;
  /** The bench database's URL, for the same-run baselines that run outside this process (psql, the bare server). */
  databaseUrl: string;
  pool: Pool;
  guildId: string;
  rows: Row[];
  log: (s: string) => void;
};

const CHUNK = 100_000;
export const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
export const s = (n: number) => `${(n / 1000).toFixed(1)} s`;
export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const judge = (ok: boolean): Verdict => (ok ? 'PASS' : 'FAIL');
export const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.min(a.length - 1, Math.max(0, Math.ceil((p / 100) * a.length) - 1))] ?? NaN;
}

export const auth = (l: BenchLink) => ({ authorization: `Token ${l.token}` });

/**
 * POST /users/:userId at 32 connections for `duration` seconds, each request a distinct new user: 19-digit
 * IDs starting with `firstDigit`, so figures sharing a database never collide.
 */
export function postLoad(
  api: RunningApi,
  link: BenchLink,
  firstDigit: string,
): (duration: number) => PromiseLike<autocannon.Result> {
  return postLoadAt(api.origin, `${link.base}/users/`, auth(link), firstDigit);
}

/** The same load against any server: `prefix` + a new user ID per request (the baseline uses it too). */
export function postLoadAt(
  origin: string,
  prefix: string,
  headers: Record<string, string>,
  firstDigit: string,
): (duration: number) => PromiseLike<autocannon.Result> {
  let counter = 0;
  const nextPath = () => `${prefix}${firstDigit}${String(counter++).padStart(ID_DIGITS - 1, '0')}`;
  return (duration) =>
    autocannon({
      url: origin,
      connections: 32,
      duration,
      timeout: 10,
      method: 'POST',
      headers,
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: nextPath() }) }],
    });
}

/** CHECKPOINT before a heavy phase, so each starts with the same clean WAL state (untimed). */
async function settle(pool: Pool): Promise<void> {
  await pool.query('CHECKPOINT');
}

// ---------------------------------------------------------------------------------------------------
// 1. PUT of 100,000 IDs over a 100,000-ID list, half of them changed.

export async function figurePut(ctx: Ctx, runs: number): Promise<void> {
  const { api, pool, log } = ctx;
  // A trusted premium link: a 50% replacement is a large removal, which the shrink hold would answer with
  // 409 on an untrusted link (spec 3.3); trusted links are never held, so every PUT is a real replace.
  const link = await seedLink(pool, ctx.guildId, { trusted: true });
  const U = 150_000; // list A = positions [0, 100k), list B = [50k, 150k): they share 50,000 IDs
  const bodies = [jsonIds(0, 100_000, U), jsonIds(50_000, 150_000, U)];
  const arrays = [idArray(0, 100_000, U), idArray(50_000, 150_000, U)];
  const agent = makeAgent(1);
  const put = async (i: number) => {
    const r = expectOk(
      await call(agent, `${api.origin}${link.base}/users`, {
        method: 'PUT',
        headers: auth(link),
        body: bodies[i % 2]!,
      }),
      'PUT /users',
    );
    const count = (JSON.parse(r.body) as { data: { user_count: number } }).data.user_count;
    if (count !== 100_000) throw new Error(`PUT /users answered user_count ${count}, expected 100000`);
    return r.ms;
  };
  // Two raw baselines, interleaved with the PUTs. The goal's ("raw PostgreSQL load of the same
  // rows"): the whole new 100k list loaded into a fresh table with the same primary key (`fresh`), with
  // the same load by binary COPY printed beside it (`freshCopy`: how the API itself sends a PUT's ids
  // (new-list.ts). For reference, a stricter one: a table shaped like link_user (LIKE …
  // INCLUDING ALL: same columns, primary key and partial expiry indexes) holding the same 100k-row list,
  // replaced by the minimal SQL a person would write knowing the diff in advance: DELETE the 50,000 rows
  // that left, INSERT the 50,000 new ones (pre-sorted), in one transaction (`raw`).
  const stored = (ids: string[]) =>
    ids.map((id) => (BigInt(id) - 2n ** 63n).toString()).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  const onlyA = `{${stored(idArray(0, 50_000, U)).join(',')}}`;
  const onlyB = `{${stored(idArray(100_000, 150_000, U)).join(',')}}`;
  const client = await pool.connect();
  await client.query('DROP TABLE IF EXISTS bench_raw_list');
  await client.query('CREATE TABLE bench_raw_list (LIKE link_user INCLUDING ALL)');
  await client.query(
    `INSERT INTO bench_raw_list (link_id, user_id) SELECT $1::bigint, x FROM unnest($2::bigint[]) x ORDER BY 2`,
    [link.linkId, `{${stored(arrays[0]!).join(',')}}`],
  );
  /** Replaces the raw list by list i % 2 (A when even, B when odd), as put(i) does. */
  const raw = async (i: number) => {
    const [gone, added] = i % 2 === 0 ? [onlyB, onlyA] : [onlyA, onlyB];
    const t0 = performance.now();
    await client.query('BEGIN');
    await client.query(
      'DELETE FROM bench_raw_list r USING unnest($2::bigint[]) x WHERE r.link_id = $1 AND r.user_id = x',
      [link.linkId, gone],
    );
    await client.query(
      'INSERT INTO bench_raw_list (link_id, user_id) SELECT $1::bigint, x FROM unnest($2::bigint[]) x',
      [link.linkId, added],
    );
    await client.query('COMMIT');
    return performance.now() - t0;
  };
  /** Times one load of the whole new list into a fresh table with the same PK (created and committed with it, dropped untimed). */
  const freshLoad = async (load: () => Promise<unknown>) => {
    const t0 = performance.now();
    await client.query('BEGIN');
    await client.query(
      `CREATE TABLE bench_raw_put (link_id bigint NOT NULL DEFAULT ${BigInt(link.linkId)}, user_id bigint NOT NULL, PRIMARY KEY (link_id, user_id))`,
    );
    await load();
    await client.query('COMMIT');
    const t = performance.now() - t0;
    await client.query('DROP TABLE bench_raw_put');
    return t;
  };
  // The goal's baseline: the load as one array parameter, its text built untimed as the PUT's JSON body
  // is. Passed as a JavaScript array, node-postgres's serializer would quote and escape 100,000 strings inside
  // the timing.
  const literals = arrays.map((a) => `{${a.join(',')}}`);
  const fresh = (i: number) =>
    freshLoad(() =>
      client.query('INSERT INTO bench_raw_put SELECT $1::bigint, unnest($2::bigint[])', [
        link.linkId,
        literals[i % 2]!,
      ]),
    );
  const copyBodies = arrays.map((a) => storedIdsCopy(a).body); // encoded untimed (sorted, as the API sends its list): the load alone is timed
  /** The same load by binary COPY of the stored values, PostgreSQL's fastest way in. */
  const freshCopy = (i: number) =>
    freshLoad(() => copyIn(client, 'COPY bench_raw_put (user_id) FROM STDIN (FORMAT binary)', copyBodies[i % 2]!));
  // This machine runs PostgreSQL with autovacuum off; production runs it. Without a vacuum the API's
  // link_user would carry every earlier run's dead rows (150,000 index entries for a 100k list after a
  // few runs) while a fresh table would not. Both tables are vacuumed and analyzed before every measured
  // run (untimed), so both sides start from the state autovacuum would leave.
  const vacuum = async () => {
    await pool.query('VACUUM (ANALYZE) link_user, bench_raw_list');
    await pool.query('CHECKPOINT');
  };
  try {
    log(
      `put: initial list (untimed) ${ms(await put(0))}, warm-up replace (untimed) ${ms(await put(1))}, warm-up raw ${ms(await raw(1))}`,
    );
    log(
      'put: VACUUM (ANALYZE) link_user and bench_raw_list + CHECKPOINT before every measured run, both sides (autovacuum is off here)',
    );
    await settle(pool);
    const apiMs: number[] = [];
    const rawMs: number[] = [];
    const freshMs: number[] = [];
    const copyMs: number[] = [];
    // Interleaved, so a burst of load from other work on the machine hits both sides alike.
    for (let i = 0; i < runs; i++) {
      await vacuum();
      apiMs.push(await put(i));
      await vacuum();
      rawMs.push(await raw(i));
      freshMs.push(await fresh(i));
      copyMs.push(await freshCopy(i));
      log(
        `put: run ${i + 1}/${runs}: PUT ${ms(apiMs.at(-1)!)}, raw replace ${ms(rawMs.at(-1)!)}, fresh 100k load ${ms(freshMs.at(-1)!)}, by COPY ${ms(copyMs.at(-1)!)} (load ${loadavg()})`,
      );
    }
    const m = median(apiMs);
    const r = median(rawMs);
    ctx.rows.push({
      figure: `PUT /users 100k over 100k, 50% changed (median of ${runs}, trusted premium link)`,
      measured: `${ms(m)} (min ${ms(Math.min(...apiMs))}, max ${ms(Math.max(...apiMs))})`,
      limit: '≤ 1,000 ms',
      verdict: judge(m <= 1000),
    });
    const f = median(freshMs);
    // The limit is against "a raw PostgreSQL load of the same rows" (docs/benchmarks.md, "Same-run limits");
    // the hand-written replace that already knows the diff is printed beside it.
    ctx.rows.push({
      figure:
        'PUT ÷ raw PostgreSQL load of the same rows, same run (the whole new 100k list into a fresh table: CREATE TABLE + INSERT … unnest, same PK, median)',
      measured: `${(m / f).toFixed(2)}× (PUT ${ms(m)}, raw ${ms(f)}; per run ${apiMs.map((a, i) => (a / freshMs[i]!).toFixed(2)).join(', ')})`,
      limit: '≤ 1.25× (goal)',
      verdict: judge(m / f <= 1.25),
    });
    const cp = median(copyMs);
    ctx.rows.push({
      figure: 'PUT ÷ the same raw load by binary COPY (the whole new 100k list into a fresh table, same PK, median)',
      measured: `${(m / cp).toFixed(2)}× (raw ${ms(cp)}; per run ${apiMs.map((a, i) => (a / copyMs[i]!).toFixed(2)).join(', ')})`,
      limit: 'reference',
      verdict: 'info',
    });
    ctx.rows.push({
      figure:
        'PUT ÷ raw replace of the same list by hand, same run (stricter: DELETE 50k + INSERT 50k that already know the diff, same indexes, both vacuumed, median)',
      measured: `${(m / r).toFixed(2)}× (raw ${ms(r)}; per run ${apiMs.map((a, i) => (a / rawMs[i]!).toFixed(2)).join(', ')})`,
      limit: 'reference',
      verdict: 'info',
    });
  } finally {
    await client.query('DROP TABLE IF EXISTS bench_raw_list').catch(() => undefined);
    client.release();
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------------
// 2. N IDs as chunks of 100,000 (4 in flight), then commit; raw insert + index build of the same rows.

/** What the upload figure measured, for the SDK figure to compare against (api-sdk-upload.ts). */
export type UploadTiming = { link: BenchLink; chunkMs: number; commitMs: number; apiPeakMiB: number };

export async function figureUpload(ctx: Ctx, n: number): Promise<UploadTiming> {
  const { api, pool, log } = ctx;
  const link = await seedLink(pool, ctx.guildId, { trusted: true });
  const agent = makeAgent(4);
  const url = (p: string) => `${api.origin}${link.base}${p}`;
  try {
    const created = expectOk(
      await call(agent, url('/users/upload'), { method: 'POST', headers: auth(link) }),
      'POST /users/upload',
    );
    const uploadId = (JSON.parse(created.body) as { data: { upload_id: string } }).data.upload_id;
    const chunks = Math.ceil(n / CHUNK);
    await settle(pool);
    let next = 0;
    let bytes = 0;
    let last = { chunks: 0, users: 0 };
    const lat: number[] = [];
    const rss = new RssWindow(api.pid);
    const t0 = performance.now();
    const sender = async () => {
      for (;;) {
        const k = next++;
        if (k >= chunks) return;
        const body = jsonIds(k * CHUNK, Math.min(n, (k + 1) * CHUNK), n); // built on the fly, ~2 MB
        bytes += Buffer.byteLength(body);
        const r = expectOk(
          await call(agent, url(`/users/upload/${uploadId}/chunk`), { method: 'POST', headers: auth(link), body }),
          `chunk ${k}`,
        );
        lat.push(r.ms);
        const c = (JSON.parse(r.body) as { data: { chunks: number; users: number } }).data;
        if (c.chunks > last.chunks) last = c;
        if ((k + 1) % 50 === 0) log(`upload: ${k + 1}/${chunks} chunks sent, ${s(performance.now() - t0)}`);
      }
    };
    await Promise.all([sender(), sender(), sender(), sender()]);
    const chunkMs = performance.now() - t0;
    const chunkRss = rss.stop();
    if (last.chunks !== chunks || last.users !== n)
      throw new Error(`upload counters ${JSON.stringify(last)}, expected ${chunks} chunks and ${n} users`);
    log(
      `upload: ${chunks} chunks in ${s(chunkMs)}; chunk latency p50 ${ms(percentile(lat, 50))}, p99 ${ms(percentile(lat, 99))}; API RSS peak ${chunkRss.peakMiB.toFixed(0)} MiB`,
    );

    await settle(pool);
    const rssCommit = new RssWindow(api.pid);
    const commit = expectOk(
      await call(agent, url(`/users/upload/${uploadId}/commit`), {
        method: 'POST',
        headers: auth(link),
        timeoutMs: 35 * 60_000,
      }),
      'commit',
    );
    const commitRss = rssCommit.stop();
    const count = (JSON.parse(commit.body) as { data: { user_count: number } }).data.user_count;
    if (count !== n) throw new Error(`commit answered user_count ${count}, expected ${n}`);
    log(`upload: commit of ${int(n)} IDs in ${s(commit.ms)}; API RSS peak ${commitRss.peakMiB.toFixed(0)} MiB`);

    // Raw PostgreSQL: the same rows (same link id, same user ids, computed server-side, so no client
    // transfer at all) into an unindexed table, then the primary key built in one pass.
    await settle(pool);
    const c = await pool.connect();
    let rawInsert = 0;
    let rawIndex = 0;
    try {
      await c.query('DROP TABLE IF EXISTS bench_raw_bulk');
      const r0 = performance.now();
      await c.query('CREATE TABLE bench_raw_bulk (link_id bigint NOT NULL, user_id bigint NOT NULL)');
      await c.query(
        `INSERT INTO bench_raw_bulk SELECT ${link.linkId}, ${idSql('j', n)} FROM generate_series(0, ${n - 1}) j`,
      );
      rawInsert = performance.now() - r0;
      const r1 = performance.now();
      await c.query('ALTER TABLE bench_raw_bulk ADD PRIMARY KEY (link_id, user_id)');
      rawIndex = performance.now() - r1;
      await c.query('DROP TABLE bench_raw_bulk');
    } finally {
      c.release();
    }
    const rawTotal = rawInsert + rawIndex;
    log(`upload: raw insert ${s(rawInsert)} + primary key build ${s(rawIndex)} = ${s(rawTotal)}`);

    const peak = Math.max(chunkRss.peakMiB, commitRss.peakMiB);
    ctx.rows.push(
      {
        figure: `Upload ${int(n)} IDs: ${chunks} chunks of 100k, 4 in flight — throughput`,
        measured: `${int(n / (chunkMs / 1000))} IDs/s, ${(bytes / 1e6 / (chunkMs / 1000)).toFixed(1)} MB/s (${s(chunkMs)}; chunk p50 ${ms(percentile(lat, 50))}, p99 ${ms(percentile(lat, 99))})`,
        limit: 'reported',
        verdict: 'info',
      },
      { figure: `Commit of ${int(n)} staged IDs`, measured: s(commit.ms), limit: 'reported', verdict: 'info' },
      {
        figure: 'Commit ÷ raw PostgreSQL insert + primary key build of the same rows',
        measured: `${(commit.ms / rawTotal).toFixed(2)}× (raw ${s(rawInsert)} insert + ${s(rawIndex)} index = ${s(rawTotal)})`,
        limit: '≤ 2× (goal)',
        verdict: judge(commit.ms <= 2 * rawTotal),
      },
      {
        figure: 'Peak RSS of the API process during chunks and commit',
        measured: `${peak.toFixed(0)} MiB (chunks ${chunkRss.peakMiB.toFixed(0)}, commit ${commitRss.peakMiB.toFixed(0)}; idle ${chunkRss.startMiB.toFixed(0)})`,
        limit: '≤ 512 MB',
        verdict: judge(peak * 1.048576 <= 512),
      },
    );
    return { link, chunkMs, commitMs: commit.ms, apiPeakMiB: peak };
  } finally {
    agent.destroy();
  }
}

/** For `--only get` without an upload: the list written straight by SQL, counters as a commit leaves them. */
export async function seedBigList(ctx: Ctx, n: number): Promise<BenchLink> {
  const link = await seedLink(ctx.pool, ctx.guildId, { trusted: true });
  await ctx.pool.query(
    `INSERT INTO link_user (link_id, user_id) SELECT ${link.linkId}, ${toStored(idSql('j', n))} FROM generate_series(0, ${n - 1}) j ORDER BY 2`,
  );
  await ctx.pool.query('UPDATE role_link SET user_count = $2, sync_wanted_seq = sync_wanted_seq + 1 WHERE id = $1', [
    link.linkId,
    n,
  ]);
  return link;
}

// ---------------------------------------------------------------------------------------------------
// 3. GET /users of the big list, streamed.

type Streamed = { mbps: number; totalMs: number; ttfbMs: number; bytes: number; peakMiB: number; startMiB: number };

/** One GET /users, read to the end and checked for length and shape without parsing it. */
async function streamOnce(ctx: Ctx, link: BenchLink, n: number): Promise<Streamed> {
  const { api } = ctx;
  const rss = new RssWindow(api.pid);
  const t0 = performance.now();
  const { bytes, ttfb, head, tail, status } = await new Promise<{
    bytes: number;
    ttfb: number;
    head: string;
    tail: string;
    status: number;
  }>((resolve, reject) => {
    const req = http.get(`${api.origin}${link.base}/users`, { headers: auth(link), timeout: 30 * 60_000 }, (res) => {
      let bytes = 0;
      let ttfb = 0;
      let head = '';
      let tail: Buffer = Buffer.alloc(0);
      res.on('data', (b: Buffer) => {
        if (!bytes) ttfb = performance.now() - t0;
        if (head.length < 300) head += b.subarray(0, 300).toString('latin1');
        bytes += b.length;
        tail = b.length >= 64 ? b.subarray(b.length - 64) : Buffer.concat([tail, b]).subarray(-64);
      });
      res.on('end', () => resolve({ bytes, ttfb, head, tail: tail.toString('latin1'), status: res.statusCode ?? 0 }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('GET /users timed out')));
    req.on('error', reject);
  });
  const totalMs = performance.now() - t0;
  const r = rss.stop();
  if (status !== 200) throw new Error(`GET /users answered ${status}: ${head}`);
  // Shape check without parsing 600 MB: `{"meta":{…},"data":["<19 digits>",…]}` has exactly this length.
  const prefix = head.indexOf('"data":[') + '"data":['.length;
  const expected = prefix + n * (ID_DIGITS + 2) + (n - 1) + 2;
  if (!head.startsWith('{"meta":') || !tail.endsWith('"]}') || bytes !== expected) {
    throw new Error(
      `GET /users body is not the expected ${n}-ID list (${bytes} bytes, expected ${expected}; ends ${JSON.stringify(tail.slice(-20))})`,
    );
  }
  return {
    mbps: bytes / 1e6 / (totalMs / 1000),
    totalMs,
    ttfbMs: ttfb,
    bytes,
    peakMiB: r.peakMiB,
    startMiB: r.startMiB,
  };
}

/**
 * The GET figure's same-run limit: `COPY (SELECT …) TO STDOUT` of the same list, the query the API runs,
 * by psql (its own process, as the API is), its output read to the end here as the API's body is. The
 * time is psql's own `\timing` of the COPY (sent to last row received), so psql's start and connection
 * are not counted: they would dominate a small list.
 */
async function rawCopyOnce(ctx: Ctx, link: BenchLink, n: number): Promise<{ totalMs: number; bytes: number }> {
  const copy = `COPY (SELECT ${fromStored('user_id')} FROM link_user WHERE link_id = ${link.linkId} ORDER BY link_user.user_id) TO STDOUT`;
  const child = spawn(
    'psql',
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', ctx.databaseUrl, '-c', '\\timing on', '-c', copy],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let bytes = 0;
  let tail = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => {
    bytes += b.length;
    tail = (tail + b.subarray(-200).toString('latin1')).slice(-200);
  });
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  // One line per ID (the digits and a newline), then psql's `Time: 1234.567 ms` line.
  const timing = /\nTime: ([\d.]+) ms[^\n]*\n$/.exec(tail);
  const rows = timing ? bytes - (timing[0].length - 1) : -1;
  if (code !== 0 || !timing || rows !== n * (ID_DIGITS + 1))
    throw new Error(
      `psql COPY: exit ${code}, ${bytes} bytes (expected ${n * (ID_DIGITS + 1)} and a timing line) ${err.slice(0, 300)}`,
    );
  return { totalMs: Number(timing[1]), bytes: rows };
}

/** MB/s the GET figure has to reach where the raw COPY allows it. */
const GET_MBPS_GOAL = 150;
/** GET rows per second ÷ raw COPY rows per second. */
const GET_RATIO_GOAL = 0.8;

/**
 * `rounds` GETs of the whole list, each paired with a raw COPY of the same list (order alternating);
 * the figure is the ratio of their median times. All rounds are printed, so a round disturbed by other
 * work on the machine shows. `fresh`: right after the commit, before VACUUM has set the visibility map:
 * one GET, reported, not judged.
 */
export async function figureGet(
  ctx: Ctx,
  link: BenchLink,
  n: number,
  opts: { fresh?: boolean; rounds?: number } = {},
): Promise<void> {
  const { log } = ctx;
  if (opts.fresh) {
    const g = await streamOnce(ctx, link, n);
    log(`get (fresh): ${int(g.bytes)} bytes in ${s(g.totalMs)}, ${g.mbps.toFixed(1)} MB/s (load ${loadavg()})`);
    ctx.rows.push({
      figure: `GET /users of ${int(n)} IDs right after the commit (before VACUUM; index-only scan still visits the heap)`,
      measured: `${g.mbps.toFixed(1)} MB/s (${s(g.totalMs)}), API RSS +${(g.peakMiB - g.startMiB).toFixed(0)} MiB`,
      limit: 'reported',
      verdict: 'info',
    });
    return;
  }
  const rounds = opts.rounds ?? 3;
  const done: Streamed[] = [];
  const raw: { totalMs: number; bytes: number }[] = [];
  log(`get: warm-up raw COPY ${s((await rawCopyOnce(ctx, link, n)).totalMs)} (not counted)`);
  for (let i = 0; i < rounds; i++) {
    const api = async () => done.push(await streamOnce(ctx, link, n));
    const copy = async () => raw.push(await rawCopyOnce(ctx, link, n));
    for (const step of i % 2 ? [api, copy] : [copy, api]) await step();
    const g = done.at(-1)!;
    const r = raw.at(-1)!;
    log(
      `get ${i + 1}/${rounds}: API ${int(g.bytes)} bytes in ${s(g.totalMs)} (first byte after ${ms(g.ttfbMs)}), ${g.mbps.toFixed(1)} MB/s; ` +
        `raw COPY ${s(r.totalMs)}, ${(r.bytes / 1e3 / r.totalMs).toFixed(1)} MB/s of its own text; API RSS ${g.startMiB.toFixed(0)} → peak ${g.peakMiB.toFixed(0)} MiB (load ${loadavg()})`,
    );
  }
  const m = [...done].sort((a, b) => a.mbps - b.mbps)[done.length >> 1]!;
  const rawMs = median(raw.map((r) => r.totalMs));
  const ratio = rawMs / median(done.map((g) => g.totalMs));
  // The API's body at the raw COPY's pace: above the goal, the raw COPY allows it and it is judged.
  const allowedMbps = m.bytes / 1e3 / rawMs;
  const growth = Math.max(...done.map((g) => g.peakMiB - g.startMiB));
  ctx.rows.push(
    {
      figure: `GET /users of ${int(n)} IDs ÷ raw COPY (SELECT …) TO STDOUT of the same list by psql, same run (rows/s, median of ${rounds}, order alternated)`,
      measured: `${ratio.toFixed(2)} (API ${s(median(done.map((g) => g.totalMs)))}, rounds ${done.map((g) => s(g.totalMs)).join(', ')}; raw COPY ${s(rawMs)}, rounds ${raw.map((r) => s(r.totalMs)).join(', ')})`,
      limit: `≥ ${GET_RATIO_GOAL} (goal)`,
      verdict: judge(ratio >= GET_RATIO_GOAL),
    },
    {
      figure: `GET /users throughput (${(m.bytes / 1e6).toFixed(0)} MB body, median round; first byte ${ms(m.ttfbMs)})`,
      measured: `${m.mbps.toFixed(1)} MB/s (rounds ${done.map((g) => g.mbps.toFixed(1)).join(', ')}); the raw COPY's pace allows ${allowedMbps.toFixed(0)} MB/s of this body`,
      limit: `≥ ${GET_MBPS_GOAL} MB/s where the raw COPY allows it`,
      verdict: allowedMbps >= GET_MBPS_GOAL ? judge(m.mbps >= GET_MBPS_GOAL) : 'info',
    },
    {
      figure: 'Peak RSS of the API process during the streams (flat: growth over idle)',
      measured: `${Math.max(...done.map((g) => g.peakMiB)).toFixed(0)} MiB peak, +${growth.toFixed(0)} MiB over idle`,
      limit: 'growth ≤ 64 MiB',
      verdict: judge(growth <= 64),
    },
  );
}

// `pnpm bench expiry [--quick] [--rows N] [--links N] [--seconds S]`: memberships that expire on their own.
// 1M memberships (default; `--quick`: 100k) on 100 links, all due within the same
// minute, removed by the expiry sweeper while the API serves a steady load: POST /users/:userId at 32
// connections and GET /users of a 10k list at 2. The load runs three phases in one run: without the sweep,
// during it, and without it again; the figure is the during-sweep throughput and p99 over the mean of the
// two phases around it (same run, same machine load), beside the sweep's own duration. The API is a real
// process over a scratch database of its own (`rolelink_bench_expiry_<random>`, dropped at the end); the
// sweeper runs the API's ExpirySweeper code in this process on its own pool (the API's own is idle: its
// interval is set to an hour), so the database work is exactly the production sweep's.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Pool } from 'pg';
import { toStored } from '@rolelink/db/client';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { ExpirySweeper } from '../services/api/src/expiry-sweeper';
import { dropPrefix } from '../test/support/redis';
import { admin, createMigratedDb, REDIS_URL } from './support/bench-db';
import { seedGuild, seedLink, type BenchLink } from './support/api-db';
import { startApi } from './support/api-process';
import { call, makeAgent } from '../scripts/support/http';

type Options = { rows: number; links: number; seconds: number };

function parseArgs(args: string[]): Options {
  const o: Options = args.includes('--quick')
    ? { rows: 100_000, links: 20, seconds: 5 }
    : { rows: 1_000_000, links: 100, seconds: 15 };
  for (let i = 0; i < args.length; i++) {
    const [flag, n] = [args[i]!, Number(args[i + 1]?.replaceAll('_', ''))];
    if (flag === '--quick') continue;
    if (!['--rows', '--links', '--seconds'].includes(flag) || !Number.isInteger(n) || n < 1)
      throw new Error(`usage: pnpm bench expiry [--quick] [--rows N] [--links N] [--seconds S] (at ${flag})`);
    o[flag.slice(2) as keyof Options] = n;
    i++;
  }
  return o;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const pct = (xs: number[], p: number) => {
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.min(a.length - 1, Math.max(0, Math.ceil((p / 100) * a.length) - 1))] ?? NaN;
};

type Phase = { name: string; seconds: number; posts: number[]; gets: number[]; errors: number };

/** POST (32 loops, distinct new users) and GET /users (2 loops) until `until` resolves; every latency kept. */
async function loadUntil(
  origin: string,
  post: BenchLink,
  get: BenchLink,
  name: string,
  until: Promise<unknown>,
  firstId: { n: bigint },
): Promise<Phase> {
  const agent = makeAgent(40);
  const phase: Phase = { name, seconds: 0, posts: [], gets: [], errors: 0 };
  let stop = false;
  void until.finally(() => (stop = true));
  const started = performance.now();
  const loop = async (fn: () => Promise<{ status: number; ms: number }>, into: number[]) => {
    while (!stop) {
      const r = await fn().catch(() => ({ status: 0, ms: 0 }));
      if (r.status === 200) into.push(r.ms);
      else phase.errors++;
    }
  };
  const headers = (l: BenchLink) => ({ authorization: `Token ${l.token}` });
  await Promise.all([
    ...Array.from({ length: 32 }, () =>
      loop(
        () =>
          call(agent, `${origin}${post.base}/users/${(firstId.n++).toString()}`, {
            method: 'POST',
            headers: headers(post),
          }),
        phase.posts,
      ),
    ),
    ...Array.from({ length: 2 }, () =>
      loop(() => call(agent, `${origin}${get.base}/users`, { method: 'GET', headers: headers(get) }), phase.gets),
    ),
  ]);
  phase.seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return phase;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  const started = new Date();
  log(
    `expiry bench: ${opts.rows.toLocaleString('en-US')} expiries on ${opts.links} links, ${os.cpus().length} cores, load ${load()}`,
  );
  const dbName = `rolelink_bench_expiry_${randomBytes(4).toString('hex')}`;
  const prefix = `rlbench-expiry-${randomBytes(4).toString('hex')}`;
  const url = await createMigratedDb(dbName);
  const pool = new Pool({ connectionString: url, max: 4 });
  const sweepPool = new Pool({ connectionString: url, max: 2 });
  const redis = producerConnection(REDIS_URL);
  const sync = new SyncNotifier(redis, prefix, silentLogger());
  const api = await startApi({
    DATABASE_URL: url,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    API_RATE_LIMIT: 'off',
    EXPIRY_SWEEP_EVERY_MS: '3600000',
  });
  const lines: string[] = [];
  try {
    const guildId = await seedGuild(pool, 'premium');
    // Due within one minute starting at `due`; the sweep runs at due + 61 s (an injected clock, no waiting).
    const due = new Date(Date.now() + 3_600_000);
    const perLink = Math.ceil(opts.rows / opts.links);
    for (let i = 0; i < opts.links; i++) {
      const l = await seedLink(pool, guildId, { trusted: true });
      const first = 100000000000000000n + BigInt(i) * 10_000_000n;
      await pool.query(
        `INSERT INTO link_user (link_id, user_id, expires_at) SELECT $1, ${toStored('($2::numeric + g)')}, $3::timestamptz + (g % 60) * interval '1 second' FROM generate_series(0, $4 - 1) g`,
        [l.linkId, first.toString(), due, perLink],
      );
      await pool.query('UPDATE role_link SET user_count = $2 WHERE id = $1', [l.linkId, perLink]);
    }
    const postLink = await seedLink(pool, guildId, { trusted: true });
    const getLink = await seedLink(pool, guildId, { trusted: true });
    await pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('(300000000000000000::numeric + g)')} FROM generate_series(1, 10000) g`,
      [getLink.linkId],
    );
    await pool.query('UPDATE role_link SET user_count = 10000 WHERE id = $1', [getLink.linkId]);
    await pool.query('VACUUM ANALYZE link_user');
    await pool.query('CHECKPOINT');
    log(`seeded ${(perLink * opts.links).toLocaleString('en-US')} expiring rows; api pid ${api.pid} (load ${load()})`);

    const ids = { n: 400000000000000000n };
    const origin = api.origin;
    await loadUntil(origin, postLink, getLink, 'warm-up', sleep(2000), ids);
    const before = await loadUntil(
      origin,
      postLink,
      getLink,
      'without sweep (before)',
      sleep(opts.seconds * 1000),
      ids,
    );
    log(`${before.name}: done (load ${load()})`);
    const sweeper = new ExpirySweeper(
      { pool: sweepPool, sync, logger: silentLogger() },
      () => new Date(due.getTime() + 61_000),
    );
    const t0 = performance.now();
    let sweepMs = 0;
    let removed = 0;
    const sweep = sweeper.sweepOnce().then((n) => {
      removed = n;
      sweepMs = performance.now() - t0;
    });
    const during = await loadUntil(origin, postLink, getLink, 'during sweep', sweep, ids);
    log(
      `${during.name}: ${removed.toLocaleString('en-US')} removed in ${(sweepMs / 1000).toFixed(1)} s (load ${load()})`,
    );
    const after = await loadUntil(origin, postLink, getLink, 'without sweep (after)', sleep(opts.seconds * 1000), ids);
    const left = await pool.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM link_user WHERE expires_at IS NOT NULL',
    );
    const journal = await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM list_change WHERE op = 'remove'");

    const rate = (p: Phase) => p.posts.length / p.seconds;
    const row = (p: Phase) =>
      `| ${p.name} | ${p.seconds.toFixed(1)} | ${rate(p).toFixed(0)} | ${pct(p.posts, 50).toFixed(1)} | ${pct(p.posts, 99).toFixed(1)} | ${(p.gets.length / p.seconds).toFixed(1)} | ${pct(p.gets, 99).toFixed(1)} | ${p.errors} |`;
    const base = {
      rps: (rate(before) + rate(after)) / 2,
      p99: (pct(before.posts, 99) + pct(after.posts, 99)) / 2,
      get99: (pct(before.gets, 99) + pct(after.gets, 99)) / 2,
    };
    lines.push(
      '',
      `pnpm bench expiry ${args.join(' ')}`.trim(),
      `${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores, load at end ${load()}`,
      '',
      '| phase | s | POST/s | POST p50 ms | POST p99 ms | GET /users (10k) /s | GET p99 ms | errors |',
      '|---|---|---|---|---|---|---|---|',
      row(before),
      row(during),
      row(after),
      '',
      `sweep: ${removed.toLocaleString('en-US')} memberships removed in ${(sweepMs / 1000).toFixed(1)} s (${(removed / (sweepMs / 1000)).toFixed(0)}/s); ${left.rows[0]!.n} expiring rows left; ${journal.rows[0]!.n} journal removals`,
      `during ÷ around: POST throughput ${(rate(during) / base.rps).toFixed(2)}, POST p99 ${(pct(during.posts, 99) / base.p99).toFixed(2)}, GET p99 ${(pct(during.gets, 99) / base.get99).toFixed(2)}`,
      '',
    );
  } finally {
    await api.stop();
    await pool.end();
    await sweepPool.end();
    await sync.close();
    redis.disconnect();
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((e: unknown) =>
      log(`could not drop ${dbName}: ${(e as Error).message}`),
    );
    await dropPrefix(prefix, REDIS_URL).catch(() => undefined);
  }
  console.log(lines.join('\n'));
}

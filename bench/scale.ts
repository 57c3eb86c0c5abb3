// `pnpm bench scale [--guilds 10000] [--seconds 120] [--top 100000] [--large 3] [--driven 200]`:
// the whole system at many guilds. The emulator and a scratch database are seeded with `--guilds`
// guilds of one link each, list sizes drawn from a power law (Pareto, α 1.1, at least 10: most guilds tens
// of members, the tail capped at `--top`; the `--large` biggest are exactly `--top`). Every guild but the
// large ones starts in sync (its members hold the role, the bot's applied rows say so), so the run spends
// the budget on what it drives, not on 10,000 first passes. The large ones start their first sync at the
// start of the measurement (their members hold nothing; handover), with role buckets of 25/s, so together
// they ask more than the global 50/s. The real services run as processes from source (scripts/service-
// process.ts, as `pnpm bench startup` starts them): 1 API, 3 bot workers, 1 plugin broker; the full
// reconcile off (its member listings would share the budget; the drift poll is the figure).
// For `--seconds`, open loop over `--driven` small guilds (one operation in flight per guild): POST
// /users/:id (add), DELETE /users/:id (remove), PUT /users (one out, one in), and hand edits on the
// emulator (a listed member loses the role) in guilds where a change of the run already reached the
// platform. Each is timed from the request (or the edit) until the emulator shows what the list wants.
// Printed, each beside its limit or baseline: small-guild latency p50/p95 by kind while the large syncs
// run; the global budget used and by route; 429s; drift coverage and p95 repair beside the 2-minute goal;
// RSS and CPU per change of each process (/proc); Redis memory per guild and link (MEMORY USAGE of this
// run's keys, and the INFO used_memory delta); Redis ops/s and CPU (INFO commandstats and cpu deltas over
// the run: the run has a redis-server of its own, so every command counted is the run's); PostgreSQL
// bytes per listed user (pg_total_relation_size of the list tables ÷ rows) and its I/O over the run
// (pg_stat_database of the run's scratch database: blocks read and hit, transactions; PostgreSQL 15 has no
// pg_stat_io, so writes are pg_stat_bgwriter's, which counts the whole shared server); notification DMs
// and their requests. Each guild has an owner of its own (owners are people: a notification burst reaches
// as many DM channels as guilds).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import { QueueName } from '@rolelink/contracts';
import { readDriftCoverage } from '@rolelink/db/sync';
import { generateToken, hashToken } from '@rolelink/domain';
import { correctlyInstalledGuild, startEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, Producer, producerConnection } from '@rolelink/queue';
import { toStored } from '@rolelink/db/client';
import { ROLE } from '../services/bot-worker/test/support/harness';
import { productionEnv, startService, type RunningService } from '../scripts/service-process';
import { cpuMs } from './support/api-process';
import { ownRedis } from '../test/support/own-redis';
import { percentile, scratchDb, sleep, teardownCase } from './sync-support';

const GLOBAL_PER_SECOND = 50;
const GOAL_MS = 120_000;
/** A change not seen on the platform after this long counts as this long (and is reported). */
const CHANGE_TIMEOUT_MS = 5 * 60_000;
const USER_BASE = 800000000000000000n;
const GUILD_BASE = 700000000000000000n;
const OWNER_BASE = 600000000000000000n;
const EXTRAS = 3; // members of each small guild who start off the list (the adds' candidates)

type Kind = 'add' | 'remove' | 'put' | 'hand edit';
type Sample = { kind: Kind; guild: number; at: number; want: Map<string, boolean>; ms?: number };

const user = (g: number, i: number) => (USER_BASE + BigInt(g) * 1_000_000n + BigInt(i)).toString();
const guildId = (g: number) => (GUILD_BASE + 1000n + BigInt(g)).toString();
const ownerOf = (g: number) => (OWNER_BASE + BigInt(g)).toString();
/** The routes of a notification (docs/sync-engine.md "Requests per message"); GET /guilds/:guildId also serves a sync's refusal check. */
const NOTIFY_ROUTES = ['GET /guilds/:guildId', 'POST /users/@me/channels', 'POST /channels/:channelId/messages'];

/** A seeded generator (mulberry32), so a size list is the same from run to run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pareto(min 10, α 1.1) sizes, capped at `top`, sorted descending; the first `large` are `top`. */
function listSizes(n: number, top: number, large: number): number[] {
  const r = rng(36);
  const sizes = Array.from({ length: n }, () => Math.min(top, Math.floor(10 * (1 - r()) ** (-1 / 1.1))));
  sizes.sort((a, b) => b - a);
  for (let i = 0; i < Math.min(large, n); i++) sizes[i] = top;
  return sizes;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      guilds: { type: 'string', default: '10000' },
      seconds: { type: 'string', default: '120' },
      top: { type: 'string', default: '100000' },
      large: { type: 'string', default: '3' },
      driven: { type: 'string', default: '200' },
    },
  });
  const n = Number(values.guilds);
  const seconds = Number(values.seconds);
  const top = Number(values.top);
  const large = Number(values.large);
  const drivenCount = Math.min(Number(values.driven), n - large);
  for (const [k, v] of Object.entries({ guilds: n, seconds, top, large, driven: drivenCount })) {
    if (!Number.isInteger(v) || v < (k === 'large' ? 0 : 1))
      throw new Error(`--${k} must be a positive integer, got ${String(values[k as keyof typeof values])}`);
  }
  const out = (s: string) => console.log(s);
  out(
    `pnpm bench scale --guilds ${n} --seconds ${seconds} --top ${top} --large ${large} --driven ${drivenCount} on ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}, ${new Date().toISOString()}`,
  );
  const shares = ['DRIFT_POLL_SHARE', 'DRIFT_POLL_MAX_SHARE', 'NOTIFY_SHARE', 'NOTIFY_MAX_SHARE'].filter(
    (k) => process.env[k] !== undefined,
  );
  if (shares.length)
    out(
      `- the workers' budget shares from the environment: ${shares.map((k) => `${k}=${process.env[k]}`).join(', ')} (the rest default)`,
    );

  const sizes = listSizes(n, top, large);
  const listed = sizes.reduce((a, b) => a + b, 0);
  // The driven guilds: the smallest (tens of members), where a change waits behind the large syncs.
  const driven = Array.from({ length: drivenCount }, (_, k) => n - 1 - k);
  const isLarge = (g: number) => g < large;
  const extras = (g: number) => (driven.includes(g) ? EXTRAS : 0);
  const emulator = await startEmulator({
    port: 0,
    // A token production accepts (not the emulator's local default): the services run with NODE_ENV=production.
    botToken: randomBytes(32).toString('hex'),
    roleBucket: { limit: 25, windowMs: 1_000 },
    globalPerSecond: GLOBAL_PER_SECOND,
    seed: {
      guilds: sizes.map((size, g) =>
        correctlyInstalledGuild({
          id: guildId(g),
          ownerId: ownerOf(g),
          botRoleId: ROLE.bot,
          linkedRoleId: ROLE.linked,
          members: Array.from({ length: size + extras(g) }, (_, i) => ({
            userId: user(g, i),
            roles: i < size && !isLarge(g) ? [ROLE.linked] : [],
          })),
        }),
      ),
    },
  });
  const db = await scratchDb('scale');
  const prefix = `rlbench-scale-${randomBytes(4).toString('hex')}`;
  // A redis-server of the run's own: its INFO counts only the run's commands and memory.
  const ownedRedis = await ownRedis();
  await ownedRedis.start();
  const REDIS_URL = ownedRedis.url;
  const redis = producerConnection(REDIS_URL);
  const producer = new Producer(QueueName.roleSync, redis, prefix);
  const services: RunningService[] = [];
  try {
    const seedStarted = performance.now();
    const tokens = new Map<number, string>();
    for (const g of driven) tokens.set(g, generateToken());
    const hashes = sizes.map((_, g) => (tokens.has(g) ? hashToken(tokens.get(g)!) : randomBytes(32)).toString('hex'));
    const gs = sizes.map((_, g) => g);
    await db.pool.query(
      `INSERT INTO guild (id, plan, paid_slots, updated_at) SELECT ${GUILD_BASE + 1000n} + g, 'premium', 0, now() FROM unnest($1::int[]) g`,
      [gs],
    );
    // Small links start in sync (list = holders = applied, seqs equal); the large ones wait for their first pass.
    await db.pool.query(
      `INSERT INTO role_link (guild_id, role_id, token_hash, token_ciphertext, plugin_url, enabled, member_mode, first_list_at, updated_at, sync_wanted_seq, sync_done_seq)
       SELECT ${GUILD_BASE + 1000n} + g, $3, decode(h, 'hex'), decode(h || h, 'hex'), 'https://plugin.example.com', true,
              (CASE WHEN g < $4 THEN 'handover' ELSE 'keep' END)::"MemberMode", now(), now(), 1, CASE WHEN g < $4 THEN 0 ELSE 1 END
         FROM unnest($1::int[], $2::text[]) s(g, h)`,
      [gs, hashes, ROLE.linked, large],
    );
    const userSql = `${USER_BASE}::numeric + (l.guild_id - ${GUILD_BASE + 1000n})::numeric * 1000000 + i`;
    await db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT l.id, ${toStored(userSql)}
         FROM role_link l JOIN unnest($1::int[], $2::int[]) s(g, size) ON l.guild_id = ${GUILD_BASE + 1000n} + s.g, generate_series(0, s.size - 1) i`,
      [gs, sizes],
    );
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) SELECT l.id, lu.user_id, 'applied' FROM role_link l JOIN link_user lu ON lu.link_id = l.id WHERE l.member_mode = 'keep'`,
    );
    await db.pool.query(
      'UPDATE role_link l SET user_count = (SELECT count(*) FROM link_user u WHERE u.link_id = l.id)',
    );
    await db.pool.query('ANALYZE');
    const linkOf = new Map(
      (
        await db.pool.query<{ guild: string; id: string }>('SELECT guild_id::text AS guild, id::text FROM role_link')
      ).rows.map((r) => [r.guild, r.id]),
    );
    out(
      `- seeded ${n.toLocaleString('en-US')} guilds, one link each, ${listed.toLocaleString('en-US')} listed users (sizes: max ${sizes[0]}, median ${sizes[n >> 1]}, min ${sizes[n - 1]}) in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`,
    );

    const redisBefore = await usedMemory(redis);
    const env = {
      ...productionEnv(db.url, REDIS_URL, prefix),
      PLATFORM_API_URL: emulator.apiBase,
      PLATFORM_BOT_TOKEN: emulator.botToken,
      PLATFORM_GLOBAL_PER_SECOND: String(GLOBAL_PER_SECOND),
      RECONCILE_EVERY_MS: '0',
      LOG_LEVEL: 'error',
    };
    // One after the other: five tsx start-ups at once on a busy machine take longer than in turn.
    for (const name of ['api', 'plugin-broker', 'bot-worker', 'bot-worker', 'bot-worker'] as const)
      services.push(await startService(name, 'tsx', env, { timeoutMs: 180_000 }));
    const api = services[0]!;
    const origin = `http://127.0.0.1:${api.port}`;

    const pending = new Set<Sample>();
    const busy = new Set<number>();
    /** Driven guilds where a change of the bench reached the platform: the sync marked them changed. */
    const changed = new Set<number>();
    const done: Sample[] = [];
    const holds = (g: number, u: string) => (emulator.state.memberRoles(guildId(g), u) ?? []).includes(ROLE.linked);
    let checking = true;
    const checker = (async () => {
      while (checking || pending.size) {
        for (const s of pending) {
          const waited = performance.now() - s.at;
          const ok = [...s.want].every(([u, want]) => holds(s.guild, u) === want);
          if (ok || waited > CHANGE_TIMEOUT_MS) {
            if (ok) s.ms = waited;
            if (ok && s.kind !== 'hand edit') changed.add(s.guild);
            pending.delete(s);
            busy.delete(s.guild);
            done.push(s);
          }
        }
        await sleep(20);
      }
    })();

    // Each driven guild's list as the bench last set it.
    const lists = new Map(driven.map((g) => [g, new Set(Array.from({ length: sizes[g]! }, (_, i) => user(g, i)))]));
    const offList = (g: number) =>
      Array.from({ length: sizes[g]! + EXTRAS }, (_, i) => user(g, i)).filter((u) => !lists.get(g)!.has(u));
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
    const call = async (g: number, method: string, path: string, body?: string) => {
      const gid = guildId(g);
      const res = await fetch(`${origin}/api/role-link/${gid}/${ROLE.linked}/users${path}`, {
        method,
        headers: { authorization: `Token ${tokens.get(g)!}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body,
      });
      if (!res.ok) throw new Error(`${method} /users${path} answered ${res.status}: ${await res.text()}`);
    };

    const before = emulator.state.stats();
    const messagesBefore = emulator.state.messages.length;
    const cpu0 = services.map((s) => cpuMs(s.pid));
    const redisStats0 = await redisStats(redis);
    const pg0 = await pgStats(db.pool);
    const started = performance.now();
    for (let g = 0; g < large; g++) await enqueueLinkSync(producer, linkOf.get(guildId(g))!);
    const mix: Kind[] = ['add', 'add', 'remove', 'remove', 'put', 'hand edit'];
    let errors = 0;
    let k = 0;
    while (performance.now() - started < seconds * 1000) {
      const free = driven.filter((d) => !busy.has(d));
      if (!free.length) {
        await sleep(100);
        continue;
      }
      let kind = mix[k++ % mix.length]!;
      // Hand edits only where the bot changed a role this run (the goal: guilds with changes in the
      // last hour; the poll reads those first). A quiet guild's edit waits for the quiet rotation by design.
      const changedFree = free.filter((d) => changed.has(d));
      if (kind === 'hand edit' && !changedFree.length) kind = 'add';
      const g = pick(kind === 'hand edit' ? changedFree : free);
      const list = lists.get(g)!;
      // Keep the guild's list between a member and all its members: no add without someone off the list.
      if ((kind === 'add' || kind === 'put') && !offList(g).length) kind = 'remove';
      if (kind === 'remove' && list.size < 2) kind = 'add';
      const s: Sample = { kind, guild: g, at: performance.now(), want: new Map() };
      busy.add(g);
      try {
        if (kind === 'add') {
          const u = pick(offList(g));
          s.want.set(u, true);
          list.add(u);
          await call(g, 'POST', `/${u}`);
        } else if (kind === 'remove') {
          const u = pick([...list]);
          s.want.set(u, false);
          list.delete(u);
          await call(g, 'DELETE', `/${u}`);
        } else if (kind === 'put') {
          const out1 = pick([...list]);
          const in1 = pick(offList(g));
          list.delete(out1);
          list.add(in1);
          s.want.set(out1, false).set(in1, true);
          await call(g, 'PUT', '', JSON.stringify([...list]));
        } else {
          const u = pick([...list]);
          s.want.set(u, true);
          emulator.state.setMemberRoles(guildId(g), u, []);
        }
        pending.add(s);
      } catch (err) {
        errors++;
        busy.delete(g);
        if (errors <= 3) console.error(err instanceof Error ? err.message : err);
      }
      await sleep(250 * (0.5 + Math.random()));
    }
    const elapsedS = (performance.now() - started) / 1000;
    const after = emulator.state.stats();
    const dmsSent = emulator.state.messages.slice(messagesBefore).filter((m) => m.recipientId !== null).length;
    const redisStats1 = await redisStats(redis);
    const pg1 = await pgStats(db.pool);
    const cpu = services.map((s, i) => cpuMs(s.pid) - cpu0[i]!);
    const rss = services.map((s) => s.rss());
    const coverage = await readDriftCoverage(db.pool);
    const redisKeys = await prefixMemory(redis, prefix);
    const redisAfter = await usedMemory(redis);
    // The samples still in flight: waited for (they finish or time out), the services still running.
    checking = false;
    await checker;
    for (const s of services.splice(0).reverse()) await s.stop();

    const changes =
      after.roleChangesApplied.added +
      after.roleChangesApplied.removed -
      before.roleChangesApplied.added -
      before.roleChangesApplied.removed;
    const requests = after.requests - before.requests;
    const r429 =
      after.rateLimited.user +
      after.rateLimited.global +
      after.rateLimited.shared -
      before.rateLimited.user -
      before.rateLimited.global -
      before.rateLimited.shared;
    const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    out(
      `- measured ${elapsedS.toFixed(0)} s; ${done.length} driven operations (${errors} refused), ${large} large first syncs of ${top.toLocaleString('en-US')} running`,
    );
    for (const kind of ['add', 'remove', 'put', 'hand edit'] as Kind[]) {
      const of = done.filter((s) => s.kind === kind);
      const times = of.map((s) => s.ms ?? CHANGE_TIMEOUT_MS).sort((a, b) => a - b);
      const missed = of.filter((s) => s.ms === undefined).length;
      const p95 = percentile(times, 95);
      out(
        `- small guilds, ${kind === 'hand edit' ? 'hand edit in a changed guild → repaired (drift poll)' : `${kind} → on the platform`}: n ${of.length}, p50 ${s1(percentile(times, 50))}, **p95 ${s1(p95)}** (goal ≤ ${GOAL_MS / 1000} s) ${p95 <= GOAL_MS ? 'PASS' : 'FAIL'}, max ${s1(times.at(-1) ?? NaN)}; not done in ${CHANGE_TIMEOUT_MS / 60_000} min: ${missed}`,
      );
    }
    out(
      `- global budget: ${requests} requests in ${elapsedS.toFixed(0)} s = ${(requests / elapsedS).toFixed(1)}/s = **${((100 * requests) / elapsedS / GLOBAL_PER_SECOND).toFixed(0)}% of ${GLOBAL_PER_SECOND}/s**; role changes applied ${changes} (${(changes / elapsedS).toFixed(1)}/s); audit-log reads ${(after.byRoute['GET /guilds/:guildId/audit-logs'] ?? 0) - (before.byRoute['GET /guilds/:guildId/audit-logs'] ?? 0)}`,
    );
    // Where the budget went: the routes by requests in the window, most first.
    const routes = Object.entries(after.byRoute)
      .map(([route, c]) => [route, c - (before.byRoute[route] ?? 0)] as const)
      .filter(([, c]) => c > 0)
      .sort((a, b) => b[1] - a[1]);
    out(`- requests by route: ${routes.map(([route, c]) => `${route} ${c}`).join(', ')}`);
    out(`- 429s: **${r429}** (goal 0) ${r429 === 0 ? 'PASS' : 'FAIL'}`);
    const notes = await db.pool.query<{ kind: string; delivery: string; n: number }>(
      'SELECT kind, delivery, count(*)::int AS n FROM notification GROUP BY 1, 2 ORDER BY 1, 2',
    );
    const notifyRequests = NOTIFY_ROUTES.reduce((a, r) => a + (after.byRoute[r] ?? 0) - (before.byRoute[r] ?? 0), 0);
    out(
      `- notifications: ${dmsSent} DMs sent to owners; their routes (${NOTIFY_ROUTES.join(', ')}) ${notifyRequests} requests = ${(notifyRequests / elapsedS).toFixed(1)}/s = **${((100 * notifyRequests) / elapsedS / GLOBAL_PER_SECOND).toFixed(0)}% of ${GLOBAL_PER_SECOND}/s** (NOTIFY_SHARE ${process.env.NOTIFY_SHARE ?? '0.1'} = ${(Number(process.env.NOTIFY_SHARE ?? 0.1) * GLOBAL_PER_SECOND).toFixed(0)}/s under load), ${(notifyRequests / Math.max(1, dmsSent)).toFixed(2)} requests per DM; notification rows at the end by kind and delivery: ${notes.rows.map((r) => `${r.kind} ${r.delivery} ${r.n}`).join(', ') || 'none'}`,
    );
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    out(
      `- drift coverage at the end: changed guilds read within 2 min **${pct(coverage.changed.shareWithin)}** of ${coverage.changed.guilds} (oldest ${coverage.changed.oldestAgeSeconds.toFixed(0)} s), all guilds ${pct(coverage.all.shareWithin)} of ${coverage.all.guilds} (oldest ${coverage.all.oldestAgeSeconds.toFixed(0)} s); the full reconcile off`,
    );
    const names = ['api', 'plugin-broker', 'bot-worker 1', 'bot-worker 2', 'bot-worker 3'];
    out(
      `- processes (RSS at the end; CPU over the run ÷ ${changes} changes applied): ${names.map((nm, i) => `${nm} ${(rss[i]! / 2 ** 20).toFixed(0)} MiB, ${cpu[i]} ms CPU = ${(cpu[i]! / Math.max(1, changes)).toFixed(2)} ms/change`).join('; ')}`,
    );
    out(
      `- Redis: this run's keys ${redisKeys.keys} holding ${(redisKeys.bytes / 1024).toFixed(0)} KiB (MEMORY USAGE) = **${(redisKeys.bytes / n).toFixed(0)} B per guild and per link** (one link each); INFO used_memory delta ${((redisAfter - redisBefore) / 1024).toFixed(0)} KiB (the run's own redis-server, from before the services' start)`,
    );
    const pg = await db.pool.query<{ rel: string; bytes: string; rows: string }>(
      `SELECT rel, pg_total_relation_size(rel)::text AS bytes, (xpath('/row/n/text()', query_to_xml('SELECT count(*) AS n FROM ' || rel, false, true, '')))[1]::text AS rows
         FROM unnest(ARRAY['link_user', 'applied_member', 'list_change', 'upload_staged']) rel`,
    );
    const total = pg.rows.reduce((a, r) => a + Number(r.bytes), 0);
    const listRows = Number(pg.rows.find((r) => r.rel === 'link_user')!.rows);
    out(
      `- PostgreSQL: list tables ${(total / 2 ** 20).toFixed(0)} MiB for ${listRows.toLocaleString('en-US')} listed users = **${(total / listRows).toFixed(0)} B per listed user** (${pg.rows.map((r) => `${r.rel} ${(Number(r.bytes) / 2 ** 20).toFixed(0)} MiB/${Number(r.rows).toLocaleString('en-US')} rows`).join(', ')})`,
    );
    const calls = [...redisStats1.calls]
      .map(([cmd, c]) => [cmd, c - (redisStats0.calls.get(cmd) ?? 0)] as const)
      .filter(([, c]) => c > 0);
    const totalCalls = calls.reduce((a, [, c]) => a + c, 0);
    const redisCpuMs = redisStats1.cpuMs - redisStats0.cpuMs;
    out(
      `- Redis ops (the run's own redis-server, INFO commandstats over the ${elapsedS.toFixed(0)} s): ${totalCalls} commands = **${(totalCalls / elapsedS).toFixed(0)} ops/s** = ${(totalCalls / Math.max(1, changes)).toFixed(1)} per change applied, ${(totalCalls / Math.max(1, requests)).toFixed(1)} per platform request; Redis CPU ${redisCpuMs.toFixed(0)} ms = ${((100 * redisCpuMs) / 1000 / elapsedS).toFixed(1)}% of a core; top: ${calls
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([cmd, c]) => `${cmd} ${c}`)
        .join(', ')}`,
    );
    const d = (k: keyof PgStats) => pg1[k] - pg0[k];
    out(
      `- PostgreSQL I/O (pg_stat_database of the run's database over the ${elapsedS.toFixed(0)} s): blocks read ${d('blksRead')} = **${(d('blksRead') / elapsedS).toFixed(0)}/s** (8 KiB, from the OS: the IOPS bound), hit ${d('blksHit')} = ${(d('blksHit') / elapsedS).toFixed(0)}/s, transactions ${d('xacts')} = **${(d('xacts') / elapsedS).toFixed(0)}/s** = ${(d('xacts') / Math.max(1, changes)).toFixed(1)} per change applied, rows written ${d('rowsWritten')} = ${(d('rowsWritten') / elapsedS).toFixed(0)}/s; buffers written (pg_stat_bgwriter, the whole shared server: others' work included) ${d('buffersWritten')} = ${(d('buffersWritten') / elapsedS).toFixed(0)}/s`,
    );
    out(`- load at the end ${os.loadavg()[0]!.toFixed(2)}`);
  } finally {
    for (const s of services.reverse()) await s.stop();
    await teardownCase({ producer, redis, emulator, db, prefix, redisUrl: REDIS_URL });
    await ownedRedis.kill();
  }
}

/** INFO commandstats (calls per command) and the server's CPU (user + sys, ms). */
async function redisStats(
  redis: ReturnType<typeof producerConnection>,
): Promise<{ calls: Map<string, number>; cpuMs: number }> {
  const calls = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls.set(m[1]!, Number(m[2]));
  const cpu = await redis.info('cpu');
  const sec = (k: string) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? NaN);
  return { calls, cpuMs: (sec('used_cpu_user') + sec('used_cpu_sys')) * 1000 };
}

type PgStats = { blksRead: number; blksHit: number; xacts: number; rowsWritten: number; buffersWritten: number };
/** This database's counters (pg_stat_database) and the server's buffer writes (pg_stat_bgwriter: PostgreSQL 15 has no pg_stat_io). */
async function pgStats(pool: Pool): Promise<PgStats> {
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT d.blks_read::text, d.blks_hit::text, (d.xact_commit + d.xact_rollback)::text AS xacts, (d.tup_inserted + d.tup_updated + d.tup_deleted)::text AS rows_written,
            (b.buffers_checkpoint + b.buffers_clean + b.buffers_backend)::text AS buffers_written
       FROM pg_stat_database d, pg_stat_bgwriter b WHERE d.datname = current_database()`,
  );
  const r = rows[0]!;
  return {
    blksRead: Number(r.blks_read),
    blksHit: Number(r.blks_hit),
    xacts: Number(r.xacts),
    rowsWritten: Number(r.rows_written),
    buffersWritten: Number(r.buffers_written),
  };
}

async function usedMemory(redis: ReturnType<typeof producerConnection>): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? NaN);
}

/** MEMORY USAGE summed over this run's keys (SCAN of the prefix): the shared Redis's other users leave it alone. */
async function prefixMemory(
  redis: ReturnType<typeof producerConnection>,
  prefix: string,
): Promise<{ keys: number; bytes: number }> {
  let cursor = '0';
  let keys = 0;
  let bytes = 0;
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of batch) {
      keys++;
      bytes += Number((await redis.call('MEMORY', 'USAGE', key)) ?? 0);
    }
  } while (cursor !== '0');
  return { keys, bytes };
}

// `pnpm bench sync drift [--guilds=1,1000] [--quick]`: the drift figure, the time from a hand edit
// on the platform to its repair, with the audit-log poll (docs/sync-engine.md, "Drift repair") and the
// full reconcile off, so only the poll can find it. Per guild count: that many guilds, each with one active
// link listing 2 members who hold the role (keep-members, so the first pass makes no call) and 4 unlisted
// members (50 and 50 for a single guild). One worker process with the default DRIFT_POLL_* settings, global limit 50/s. Once every guild's
// log has been read once, hand edits at random moments (open loop, gaps uniform in 0.5–1.5 × the mean gap)
// in random guilds: a listed member loses the role, or an unlisted member gets it, alternately. Each is
// timed from the edit until the emulator shows the member as the list wants again. Printed: p50/p95/max
// beside the 2-minute goal, and the poll's audit-log reads per second as a share of the global limit.
//
// `pnpm bench sync drift-priority [--guilds=2000] [--changed=100,300]`: the poll at its
// DRIFT_POLL_SHARE floor only (DRIFT_POLL_MAX_SHARE set equal: the budget a busy sync engine leaves it,
// 2 reads/s of 50/s), `--guilds` linked guilds of which `--changed` had a hand edit seen within the hour
// (drift_poll.hand_edit_at set before the measurement, as the poll sets it), and hand edits only in those.
// Printed beside the 2-minute goal: p95 edit → repaired, the coverage (the share of all guilds and of the
// changed ones read within 2 minutes, the least recently read guild's age: readDriftCoverage, the figures
// of rolelink_drift_poll_*), and the changed-guild count the arithmetic says 2 minutes hold up to.
import { randomBytes } from 'node:crypto';
import { QueueName } from '@rolelink/contracts';
import { correctlyInstalledGuild, startEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, Producer, producerConnection, type RedisClient } from '@rolelink/queue';
import { insertLink, ROLE, snapshotHolders, upsertGuild, writeList } from '../services/bot-worker/test/support/harness';
import { DRIFT_PRIORITY, readDriftCoverage, type DriftCoverage } from '@rolelink/db/sync';
import {
  percentile,
  REDIS_URL,
  scratchDb,
  sleep,
  spawnWorkers,
  stopWorkers,
  verdict,
  workerEnv,
  teardownCase,
} from './sync-support';

const GOAL_MS = 120_000;
/** An edit not repaired after this long counts as this long (and is reported). */
const REPAIR_TIMEOUT_MS = 5 * 60_000;
const AUDIT_ROUTE = 'GET /guilds/:guildId/audit-logs';
const GLOBAL_PER_SECOND = 50;

type Sample = { guild: string; user: string; wantsRole: boolean; at: number; repairedMs?: number };

/** DRIFT_POLL_SHARE's default: the floor the poll keeps while syncs are busy. */
const FLOOR_SHARE = 0.04;

export async function benchDrift(
  out: (s: string) => void,
  guildCounts: number[],
  samples: (guilds: number) => number,
): Promise<void> {
  for (const n of guildCounts) await one(out, n, samples(n));
}

/** Priority: `guildCount` guilds, hand edits only in the first `changed` of them, the poll at its floor share. */
export async function benchDriftPriority(
  out: (s: string) => void,
  guildCount: number,
  changedCounts: number[],
  samples: number,
): Promise<void> {
  // 2 minutes hold while every changed guild is read within 120 s on the changed guilds' share of the floor.
  const holdsUpTo = Math.floor(GLOBAL_PER_SECOND * FLOOR_SHARE * DRIFT_PRIORITY.changedShare * 120);
  for (const changed of changedCounts) await one(out, guildCount, samples, { changed, holdsUpTo });
}

type Priority = { changed: number; holdsUpTo: number };

async function one(
  out: (s: string) => void,
  guildCount: number,
  sampleCount: number,
  priority?: Priority,
): Promise<void> {
  const guilds = Array.from({ length: guildCount }, (_, i) => (700000000000100000n + BigInt(i)).toString());
  // One guild gets more members, so that its edits rarely wait for a member whose last edit is pending.
  const [nListed, nUnlisted] = guildCount === 1 ? [50, 50] : [2, 4];
  const user = (g: number, i: number) => (800000000000000000n + BigInt(g) * 100n + BigInt(i)).toString();
  const listed = (g: number) => Array.from({ length: nListed }, (_, i) => user(g, i));
  const unlisted = (g: number) => Array.from({ length: nUnlisted }, (_, i) => user(g, nListed + i));
  const emulator = await startEmulator({
    port: 0,
    roleBucket: { limit: 10, windowMs: 1_000 },
    globalPerSecond: GLOBAL_PER_SECOND,
    seed: {
      guilds: guilds.map((id, g) =>
        correctlyInstalledGuild({
          id,
          botRoleId: ROLE.bot,
          linkedRoleId: ROLE.linked,
          members: [
            ...listed(g).map((userId) => ({ userId, roles: [ROLE.linked] })),
            ...unlisted(g).map((userId) => ({ userId, roles: [] })),
          ],
        }),
      ),
    },
  });
  const db = await scratchDb('drift');
  const prefix = `rlbench-${randomBytes(4).toString('hex')}`;
  const redis: RedisClient = producerConnection(REDIS_URL);
  const producer = new Producer(QueueName.roleSync, redis, prefix);
  try {
    const links: string[] = [];
    for (const [g, id] of guilds.entries()) {
      await upsertGuild(db.pool, id, 'free');
      const link = await insertLink(db.pool, { guildId: id, roleId: ROLE.linked, memberMode: 'keep' });
      await writeList(db.pool, link, listed(g));
      await snapshotHolders(db.pool, link, listed(g));
      links.push(link);
    }
    // The reconcile off: it would repair the edits too, and this figure is the poll's.
    // Priority: the poll held to its floor (the share a busy sync engine leaves it).
    const floorOnly: Record<string, string> = priority
      ? { DRIFT_POLL_SHARE: String(FLOOR_SHARE), DRIFT_POLL_MAX_SHARE: String(FLOOR_SHARE) }
      : {};
    const [worker] = spawnWorkers(
      1,
      workerEnv(
        { db, prefix, emulator },
        {
          WORKER_CONCURRENCY: '8',
          RECONCILE_EVERY_MS: '0',
          PLATFORM_GLOBAL_PER_SECOND: String(GLOBAL_PER_SECOND),
          ...floorOnly,
        },
      ),
    );
    for (const l of links) await enqueueLinkSync(producer, l);
    // Warm: every link's first pass done and every guild's log read once.
    const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);
    const warmStarted = performance.now();
    // Priority: the changed guilds read once, their hand edit seen within the hour (as the poll records one);
    // the quiet ones are read as their turns come (at the floor a round of 2,000 takes over an hour).
    const edited = priority ? guilds.slice(0, priority.changed) : guilds;
    while (
      (await count('SELECT count(*) AS n FROM role_link WHERE sync_done_seq < sync_wanted_seq')) > 0 ||
      (await count(
        `SELECT count(*) AS n FROM drift_poll WHERE polled_at IS NOT NULL AND guild_id = ANY('{${edited.join(',')}}'::bigint[])`,
      )) < edited.length
    ) {
      if (priority)
        await db.pool.query(
          'UPDATE drift_poll SET hand_edit_at = localtimestamp WHERE guild_id = ANY($1::bigint[]) AND hand_edit_at IS NULL',
          [edited],
        );
      if (performance.now() - warmStarted > 10 * 60_000) throw new Error('warm-up did not finish in 10 minutes');
      await sleep(500);
    }
    const warmMs = performance.now() - warmStarted;

    const holds = (s: Sample) => (emulator.state.memberRoles(s.guild, s.user) ?? []).includes(ROLE.linked);
    const pending = new Set<Sample>();
    const busy = new Set<string>();
    const done: Sample[] = [];
    let checking = true;
    const checker = (async () => {
      while (checking || pending.size) {
        for (const s of pending) {
          const waited = performance.now() - s.at;
          if (holds(s) === s.wantsRole || waited > REPAIR_TIMEOUT_MS) {
            s.repairedMs = holds(s) === s.wantsRole ? waited : undefined;
            pending.delete(s);
            busy.delete(s.user);
            done.push(s);
          }
        }
        await sleep(20);
      }
    })();

    const before = emulator.state.stats();
    const started = performance.now();
    const meanGapMs = guildCount === 1 ? 1_500 : 2_000;
    // One edit at a time per member: a member whose last edit is not repaired yet is not picked.
    for (let k = 0; k < sampleCount; k++) {
      const wantsRole = k % 2 === 0;
      let pick: { g: number; who: string } | undefined;
      while (!pick) {
        const g = Math.floor(Math.random() * edited.length);
        const free = (wantsRole ? listed(g) : unlisted(g)).filter((u) => !busy.has(u));
        if (free.length) pick = { g, who: free[Math.floor(Math.random() * free.length)]! };
        else await sleep(100);
      }
      const s: Sample = { guild: guilds[pick.g]!, user: pick.who, wantsRole, at: performance.now() };
      emulator.state.setMemberRoles(s.guild, s.user, wantsRole ? [] : [ROLE.linked]);
      busy.add(s.user);
      pending.add(s);
      await sleep(meanGapMs * (0.5 + Math.random()));
    }
    // Coverage as rolelink_drift_poll_* reports it, at the end of the edits (the worst of the run is later).
    const coverage = priority ? await readDriftCoverage(db.pool) : undefined;
    checking = false;
    await checker;
    const elapsedS = (performance.now() - started) / 1000;
    const after = emulator.state.stats();
    await stopWorkers([worker!]);

    const times = done.filter((s) => s.repairedMs !== undefined).map((s) => s.repairedMs!);
    const missed = done.length - times.length;
    times.push(...Array<number>(missed).fill(REPAIR_TIMEOUT_MS));
    times.sort((a, b) => a - b);
    const reads = (after.byRoute[AUDIT_ROUTE] ?? 0) - (before.byRoute[AUDIT_ROUTE] ?? 0);
    const requests = after.requests - before.requests;
    const readsPerS = reads / elapsedS;
    const p95 = percentile(times, 95);
    out(
      priority
        ? `### Drift priority: ${guildCount.toLocaleString('en-US')} linked guilds, ${priority.changed} changed within the hour (2 minutes hold up to ${priority.holdsUpTo}), ${sampleCount} hand edits in those, poll at its ${FLOOR_SHARE * 100}% floor`
        : `### Drift repair: ${guildCount.toLocaleString('en-US')} linked guild${guildCount > 1 ? 's' : ''}, ${sampleCount} hand edits`,
    );
    out(
      `- edit → repaired: p50 ${(percentile(times, 50) / 1000).toFixed(1)} s, **p95 ${(p95 / 1000).toFixed(1)} s** (goal < ${GOAL_MS / 1000} s) ${verdict(p95 < GOAL_MS)}, max ${(times[times.length - 1]! / 1000).toFixed(1)} s; not repaired in ${REPAIR_TIMEOUT_MS / 60_000} min: ${missed}`,
    );
    out(
      `- poll's spend: ${reads} audit-log reads in ${elapsedS.toFixed(0)} s = ${readsPerS.toFixed(2)}/s = **${((100 * readsPerS) / GLOBAL_PER_SECOND).toFixed(1)}% of the global limit** (${GLOBAL_PER_SECOND}/s; DRIFT_POLL_SHARE 4% floor, DRIFT_POLL_MAX_SHARE 30% ceiling); all requests ${requests} (${(requests / elapsedS).toFixed(2)}/s), 429s ${after.rateLimited.user + after.rateLimited.global - before.rateLimited.user - before.rateLimited.global}`,
    );
    if (coverage) out(`- coverage: ${coverageLine(coverage)}`);
    out(
      `- warm-up (first passes, ${priority ? "the changed guilds'" : "every guild's"} log read once): ${(warmMs / 1000).toFixed(0)} s`,
    );
  } finally {
    await teardownCase({ producer, redis, emulator, db, prefix });
  }
}

function coverageLine(c: DriftCoverage): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return `read within 2 min: changed guilds **${pct(c.changed.shareWithin)}** of ${c.changed.guilds} (least recently read ${c.changed.oldestAgeSeconds.toFixed(0)} s ago), all guilds ${pct(c.all.shareWithin)} of ${c.all.guilds} (least recently read ${c.all.oldestAgeSeconds.toFixed(0)} s ago)`;
}

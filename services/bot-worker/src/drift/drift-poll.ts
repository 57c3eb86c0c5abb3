import { randomUUID } from 'node:crypto';
import { AuditLogEvent, type APIAuditLogEntry } from 'discord-api-types/v10';
import { inTransaction } from '@rolelink/db/client';
import { journalRepairs } from '@rolelink/db/list';
import {
  claimDueDriftGuilds,
  DRIFT_PRIORITY,
  finishDriftPoll,
  guildOutages,
  markHandAdded,
  markHandRemovedUsers,
  releaseDriftGuild,
  syncDriftGuilds,
  type DriftGuild,
  type DriftPollStatus,
} from '@rolelink/db/sync';
import { openOutage } from '../sync/refusals';
import { classifyPlatformError } from '@rolelink/platform-client';
import { activeLinks } from '../reconcile/reconcile';
import { driftFromEntries, newestEntryId } from './audit-drift';
import type { RepairDeps } from '../repair-deps';
import type { BudgetShare } from '../budget-share';
import { recordRoleRestoredEvents } from '@rolelink/db/events';

/** The platform's largest audit-log page. */
export const AUDIT_PAGE = 100;
/**
 * A guild whose log the bot may not read (View Audit Log missing) is asked again after this long: each
 * refusal is a 403, which the platform counts toward its invalid-request ban, so 1,000 such guilds cost
 * ~170 of them per 10 minutes (the limiter stops everything at 1,000).
 */
export const NO_PERMISSION_RETRY_MS = 60 * 60_000;
/** The repairs' time guard, off: every record is older than this (see pollGuild). */
const LOG_ORDER_DECIDES = new Date(8_640_000_000_000_000);
/** A claimed guild is not claimed again for this long, should its worker die before it is done. */
const CLAIM_LEASE_MS = 60_000;
/**
 * Audit-log reads one tick has in flight at once. One at a time, a read's round trip (under load,
 * hundreds of ms) rather than the budget set the pace (docs/benchmarks.md, "Drift repair"). The budget
 * still grants each read (take() before it), so more at once never exceeds the poll's share; a few
 * suffice to fill a share of 15/s, and each holds a database connection only for its short repair.
 */
export const READS_AT_ONCE = 6;
/** How often a tick looks again for the lock the previous tick still holds. */
const LOCK_RETRY_MS = 50;

export type DriftPollDeps = RepairDeps & {
  budget: BudgetShare;
  /** DRIFT_POLL_EVERY_MS: a guild's log is read at most this often. */
  everyMs: number;
  /** How often a poll job runs: it claims at most the guilds the budget's ceiling allows in that time. */
  tickMs: number;
  /** The bot's own user id: its own entries are not drift. */
  botUserId(): Promise<string>;
};

export type DriftPollResult = { guilds: number; repaired: number; outOfBudget: number };

/**
 * One tick of drift repair (docs/sync-engine.md, "Drift repair"): reads the audit log of the guilds
 * with active links that are due, within the poll's budget, and repairs the applied record of exactly
 * the members it names for linked roles; the repaired users go into the link's journal, so the sync
 * puts the platform back as for any list change. One tick spends the budget at a time across all
 * workers (a Redis lock); the lock covers the claim and the grants, not the reads' round trips.
 */
export async function runDriftPoll(deps: DriftPollDeps): Promise<DriftPollResult> {
  const result: DriftPollResult = { guilds: 0, repaired: 0, outOfBudget: 0 };
  const lock = await tickLock(deps);
  if (!lock) return result;
  const reads: Promise<void>[] = [];
  try {
    const links = await activeLinks(deps.db);
    const byGuild = new Map<string, Map<string, string>>();
    for (const l of links) {
      let roles = byGuild.get(l.guildId);
      if (!roles) byGuild.set(l.guildId, (roles = new Map<string, string>()));
      roles.set(l.roleId, l.id);
    }
    // Guilds the bot is out of are not read (their outage is the sync's and the reconcile's to end): the
    // poll forgets its place there and starts from the newest page when the bot is back.
    for (const g of (await guildOutages(deps.db, [...byGuild.keys()])).keys()) byGuild.delete(g);
    await syncDriftGuilds(deps.db, [...byGuild.keys()]);
    const claimLimit = Math.max(1, Math.ceil((deps.budget.o.maxPerSecond * deps.tickMs) / 1_000));
    // Turns are counted across ticks (and workers: one tick at a time), so quiet guilds get their share
    // even when a tick has budget for one read; a lost count only starts the turns over.
    const turnKey = `${deps.prefix}:drift:turn`;
    const firstTurn = Number((await deps.redis.get(turnKey)) ?? 0) || 0;
    const claimed = await claimDueDriftGuilds(deps.db, claimLimit, CLAIM_LEASE_MS, { ...DRIFT_PRIORITY, firstTurn });
    // Claimed in priority order (changed guilds ahead, quiet ones in every fifth turn, each the longest
    // unread first: DRIFT_PRIORITY), so the budget goes to them in that order; a guild given back is due again at once.
    const tickEnds = Date.now() + deps.tickMs;
    const inFlight = new Set<Promise<void>>();
    let granted = 0;
    for (const [i, guild] of claimed.entries()) {
      const linkOfRole = byGuild.get(guild.guildId);
      if (!linkOfRole) {
        await releaseDriftGuild(deps.db, guild.guildId); // no active link since the list was read
        continue;
      }
      while (inFlight.size >= READS_AT_ONCE) await Promise.race(inFlight);
      if (!(await budgetWithin(deps.budget, tickEnds))) {
        // Out of budget: the rest are due again at once, read by a later tick.
        for (const rest of claimed.slice(i)) {
          await releaseDriftGuild(deps.db, rest.guildId);
          if (byGuild.has(rest.guildId)) result.outOfBudget++;
        }
        break;
      }
      granted++;
      const read = pollGuild(deps, guild, linkOfRole).then((repaired) => {
        result.repaired += repaired;
        result.guilds++;
      });
      reads.push(read);
      const lane: Promise<void> = read
        .catch(() => undefined)
        .then(() => {
          inFlight.delete(lane);
        });
      inFlight.add(lane);
    }
    // Only reads granted use up turns (claims given back unread keep their place in the order), counted
    // before the lock goes so the next tick claims in the right turn.
    if (granted) await deps.redis.incrby(turnKey, granted);
  } catch (err) {
    await Promise.allSettled(reads); // none left running behind a failed tick
    throw err;
  } finally {
    await lock.release();
  }
  // The granted reads end outside the lock, and the next tick waits for it (tickLock). A tick lasts its
  // start-up, tickMs of grants and its last reads' round trips (slow while they wait at the global limiter
  // behind the syncs): longer than a tick, so the next scheduled tick found the lock taken and was skipped,
  // and the budget's windows until the one after went unspent: 6 reads per 4 s, 1.5 of the floor's 2/s
  // (docs/benchmarks.md, "The whole system at 10,000 guilds").
  const failed = (await Promise.allSettled(reads)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (result.repaired || result.outOfBudget) deps.logger.info('drift poll', { jobId: deps.jobId, ...result });
  if (failed) throw failed.reason;
  return result;
}

/**
 * The tick's lock, waiting while the previous tick is still granting (its end is set after its own
 * start-up, so it runs into the next tick's start: skipping that tick left the budget's windows until
 * the one after unspent); null when it stays taken for two ticks (a tick that waited already holds it).
 */
async function tickLock(deps: DriftPollDeps): Promise<{ release(): Promise<void> } | null> {
  const key = `${deps.prefix}:drift:lock`;
  const owner = randomUUID();
  const giveUpAt = Date.now() + 2 * deps.tickMs;
  while (!(await deps.redis.set(key, owner, 'PX', CLAIM_LEASE_MS, 'NX'))) {
    if (Date.now() >= giveUpAt) return null;
    await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
  }
  return {
    release: async () => {
      if ((await deps.redis.get(key)) === owner) await deps.redis.del(key);
    },
  };
}

/**
 * A read's budget, waiting for the budget's next window while that opens before the tick ends. The claim
 * covers the ceiling for a whole tick (several windows); giving back what one window could not grant
 * halved the poll's rate (15 reads per 2 s tick at a ceiling of 15/s).
 *
 * The next window is the one after the window that refused, which is the one the take was asked in: a
 * take whose round trip ended in the next window asks that one at once. Reckoned from the time the answer
 * came, it skipped a whole window, and a tick with one window left gave up with its budget unspent (a
 * loaded machine's Redis round trips crossed a window's end often enough to fail drift-tick.int.test.ts).
 */
export async function budgetWithin(
  budget: Pick<BudgetShare, 'take' | 'nextWindowInMs'>,
  tickEnds: number,
): Promise<boolean> {
  for (;;) {
    const asked = Date.now();
    if (await budget.take()) return true;
    const opens = asked + budget.nextWindowInMs(asked);
    if (opens >= tickEnds) return false;
    const wait = opens - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

/** Reads one page of the guild's log after its place, repairs what it names; returns the users repaired. */
async function pollGuild(
  deps: DriftPollDeps,
  guild: DriftGuild,
  linkOfRole: ReadonlyMap<string, string>,
): Promise<number> {
  // The log's order decides, not PostgreSQL's time (the reconcile's guard): a hand edit that is the newest
  // entry for its member came after every bot call in the page, even when the sync wrote that call's record
  // only after this read began; guarding by time would skip it while the place in the log moves past it.
  // A bot call made after the read is then repeated once (role calls are idempotent).
  const seenAt = LOG_ORDER_DECIDES;
  let entries: APIAuditLogEntry[];
  try {
    // The first read takes the newest page: older hand edits are the reconcile's (and repairing them again is harmless).
    const query = guild.lastEntryId === null ? {} : { after: guild.lastEntryId };
    entries = (
      await deps.api.guilds.getAuditLogs(guild.guildId, {
        action_type: AuditLogEvent.MemberRoleUpdate,
        limit: AUDIT_PAGE,
        ...query,
      })
    ).audit_log_entries;
  } catch (err) {
    const failure = classifyPlatformError(err);
    if (failure.kind === 'rate_limited' || failure.kind === 'limiter_unavailable') {
      await releaseDriftGuild(deps.db, guild.guildId);
      return 0;
    }
    if (failure.kind === 'guild_unavailable') {
      // Blocked, never a quiet skip: the guild's outage opens (links stop, the owner hears of it) and it is counted.
      await openOutage(deps, guild.guildId, failure.code);
      deps.blocked?.('drift', 'guild_unavailable');
      await finishDriftPoll(deps.db, guild.guildId, {
        lastEntryId: null,
        status: 'failed',
        repaired: 0,
        nextInMs: deps.everyMs,
      });
      return 0;
    }
    const status: DriftPollStatus = failure.kind === 'missing_permission' ? 'no_permission' : 'failed';
    if (status !== guild.status) {
      deps.logger.warn(
        status === 'no_permission'
          ? 'drift repair cannot read the audit log (the bot lacks View Audit Log): hand edits in this guild wait for the periodic reconcile'
          : 'drift repair could not read the audit log',
        {
          guildId: guild.guildId,
          failure: failure.kind,
          ...(failure.kind === 'failed' ? { error: failure.message } : {}),
        },
      );
    }
    await finishDriftPoll(deps.db, guild.guildId, {
      lastEntryId: null,
      status,
      repaired: 0,
      nextInMs: status === 'no_permission' ? NO_PERMISSION_RETRY_MS : deps.everyMs,
    });
    return 0;
  }
  if (guild.status === 'no_permission')
    deps.logger.info('drift repair reads the audit log again', { guildId: guild.guildId });

  const drift = driftFromEntries(entries, await deps.botUserId(), linkOfRole);
  // A full page after our place means more is waiting: read on at once (within the budget).
  const more = guild.lastEntryId !== null && entries.length === AUDIT_PAGE;
  const repairedLinks = await inTransaction(deps.db, async (c) => {
    const repaired: { linkId: string; users: string[] }[] = [];
    for (const [linkId, d] of drift) {
      const added = await markHandAdded(c, linkId, d.added, seenAt);
      const removed = await markHandRemovedUsers(c, linkId, d.removed, seenAt);
      const users = [...added, ...removed];
      // Into the journal in the same transaction: the sync applies exactly these users.
      await journalRepairs(c, linkId, users);
      await recordRoleRestoredEvents(c, linkId, removed, 'drift');
      if (users.length) repaired.push({ linkId, users });
    }
    const count = repaired.reduce((n, r) => n + r.users.length, 0);
    // A hand edit of a linked role (repaired or not) makes the guild `changed`: read ahead of quiet ones for a while.
    await finishDriftPoll(c, guild.guildId, {
      lastEntryId: newestEntryId(entries),
      status: 'ok',
      repaired: count,
      nextInMs: more ? 0 : deps.everyMs,
      handEdit: drift.size > 0,
    });
    return repaired;
  });
  for (const r of repairedLinks) {
    deps.logger.info('drift repair found hand edits', {
      guildId: guild.guildId,
      linkId: r.linkId,
      users: r.users.length,
    });
    await deps.enqueueSync(r.linkId);
  }
  return repairedLinks.reduce((n, r) => n + r.users.length, 0);
}

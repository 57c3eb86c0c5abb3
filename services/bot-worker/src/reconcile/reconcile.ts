import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { databaseNow, reconcileLinks } from '@rolelink/db/sync';
import { isPaused } from '@rolelink/domain';
import { classifyPlatformError, MEMBERS_PAGE } from '@rolelink/platform-client';
import type { RepairDeps } from '../jobs/repair-deps';
import { repairPage } from './repair';

export type ReconcileDeps = RepairDeps & {
  /** Wall time one reconcile job may take before it re-enqueues itself. */
  budgetMs: number;
};

/** One job's share of a reconcile: guilds whose member listing it finished, links it found drifted, pages read. */
type ReconcileCounts = { guilds: number; drifted: number; pages: number };
export type ReconcileResult = ReconcileCounts & ({ kind: 'done' } | { kind: 'continue'; delayMs: number });

type ActiveLink = { id: string; guildId: string; roleId: string; behind: boolean };

/** Links that sync (enabled, within the slot allowance, not a hand-over waiting for its first list). */
export async function activeLinks(db: Pool, guildId?: string): Promise<ActiveLink[]> {
  const rows = await reconcileLinks(db, guildId);
  return rows.filter((r) => r.enabled && !isPaused(r.rank, r.plan, r.paid_slots) && !(r.member_mode === 'handover' && r.first_list_at === null)).map((r) => ({ id: r.id, guildId: r.guild_id, roleId: r.role_id, behind: r.behind }));
}

type State = { guilds: string[]; after: string };

/**
 * The periodic reconcile: for each guild with active links, page through the platform's member listing
 * and repair the applied record of each link (hand edits, members who left, not-in-guild users who
 * joined), enqueueing a sync wherever something changed. It also re-enqueues links whose outbox is
 * behind. Progress lives in Redis, so a long reconcile spans several jobs (budget, rate limits).
 */
export async function runReconcile(deps: ReconcileDeps): Promise<ReconcileResult> {
  const stateKey = `${deps.prefix}:reconcile:state`;
  const lockKey = `${deps.prefix}:reconcile:lock`;
  const owner = randomUUID();
  const started = performance.now();
  const locked = await deps.redis.set(lockKey, owner, 'PX', deps.budgetMs + 60_000, 'NX');
  if (!locked) {
    deps.logger.debug('reconcile run', { jobId: deps.jobId, result: 'busy' });
    return { kind: 'done', guilds: 0, drifted: 0, pages: 0 };
  }
  try {
    const result = await reconcileSlice(deps, stateKey);
    // A run spans several jobs (budget, rate limits): one line per job, low volume (one replica, every RECONCILE_EVERY_MS).
    deps.logger.info('reconcile run', {
      jobId: deps.jobId,
      result: result.kind === 'done' ? 'finished' : 'continues',
      guilds: result.guilds,
      drifted: result.drifted,
      pages: result.pages,
      ...(result.kind === 'continue' && { delay_ms: Math.round(result.delayMs) }),
      duration_ms: Math.round(performance.now() - started),
    });
    return result;
  } finally {
    if ((await deps.redis.get(lockKey)) === owner) await deps.redis.del(lockKey);
  }
}

async function reconcileSlice(deps: ReconcileDeps, stateKey: string): Promise<ReconcileResult> {
  const started = Date.now();
  const raw = await deps.redis.get(stateKey);
  let state: State;
  if (raw) {
    state = JSON.parse(raw) as State;
  } else {
    const links = await activeLinks(deps.db);
    for (const l of links) if (l.behind) await deps.enqueueSync(l.id);
    state = { guilds: [...new Set(links.map((l) => l.guildId))], after: '0' };
  }
  const counts: ReconcileCounts = { guilds: 0, drifted: 0, pages: 0 };
  const save = () => deps.redis.set(stateKey, JSON.stringify(state), 'PX', 24 * 3_600_000);

  while (state.guilds.length) {
    if (Date.now() - started >= deps.budgetMs) {
      await save();
      return { ...counts, kind: 'continue', delayMs: 0 };
    }
    const guildId = state.guilds[0]!;
    const links = await activeLinks(deps.db, guildId);
    if (!links.length) {
      state.guilds.shift();
      state.after = '0';
      continue;
    }
    const seenAt = await databaseNow(deps.db);
    let members;
    try {
      members = await deps.api.guilds.getMembers(guildId, { limit: MEMBERS_PAGE, after: state.after });
    } catch (err) {
      const failure = classifyPlatformError(err);
      if (failure.kind === 'rate_limited' || failure.kind === 'limiter_unavailable') {
        await save();
        return { ...counts, kind: 'continue', delayMs: failure.retryAfterMs };
      }
      deps.logger.warn('reconcile cannot read the member listing; guild skipped', { guildId, failure: failure.kind });
      state.guilds.shift();
      state.after = '0';
      continue;
    }
    counts.pages++;
    const last = members[members.length - 1]?.user.id ?? null;
    const page = { after: state.after, last, done: members.length < MEMBERS_PAGE, members };
    for (const link of links) {
      const r = await repairPage(deps.db, link, page, seenAt);
      if (r.handAdded || r.handRemoved || r.eligibleAgain) {
        counts.drifted++;
        deps.logger.info('reconcile repaired drift', { linkId: link.id, ...r });
        await deps.enqueueSync(link.id);
      }
    }
    if (page.done || !last) {
      counts.guilds++;
      state.guilds.shift();
      state.after = '0';
    } else {
      state.after = last;
    }
    await save();
  }
  await deps.redis.del(stateKey);
  return { ...counts, kind: 'done' };
}

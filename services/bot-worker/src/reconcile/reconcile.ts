import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import {
  clearMembersListingBlocked,
  databaseNow,
  guildOutages,
  markMembersListingBlocked,
  reconcileLinks,
} from '@rolelink/db/sync';
import { isPaused, MEMBERS_INTENT_SETTING } from '@rolelink/domain';
import { classifyPlatformError, listingRefusal, MEMBERS_PAGE } from '@rolelink/platform-client';
import { guildBack, openOutage } from '../sync/refusals';
import type { RepairDeps } from '../repair-deps';
import { repairPage } from './repair';

export type ReconcileDeps = RepairDeps & {
  /** Wall time one reconcile job may take before it re-enqueues itself. */
  budgetMs: number;
};

/**
 * One job's share of a reconcile: guilds whose member listing it finished, links it found drifted, pages
 * read; `blocked`: guilds it could not read (the bot is out of them, or the application cannot list
 * members at all: then the run stops at its first guild, `reason` says so).
 */
type ReconcileCounts = { guilds: number; drifted: number; pages: number; blocked: number; reason?: 'members_intent' };
export type ReconcileResult = ReconcileCounts & ({ kind: 'done' } | { kind: 'continue'; delayMs: number });

type ActiveLink = { id: string; guildId: string; roleId: string; behind: boolean };

/** Links that sync (enabled, within the slot allowance, not a hand-over waiting for its first list). */
export async function activeLinks(db: Pool, guildId?: string): Promise<ActiveLink[]> {
  const rows = await reconcileLinks(db, guildId);
  return rows
    .filter(
      (r) =>
        r.enabled &&
        !isPaused(r.rank, r.plan, r.paid_slots) &&
        !(r.member_mode === 'handover' && r.first_list_at === null),
    )
    .map((r) => ({ id: r.id, guildId: r.guild_id, roleId: r.role_id, behind: r.behind }));
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
    return { kind: 'done', guilds: 0, drifted: 0, pages: 0, blocked: 0 };
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
      ...(result.blocked > 0 && { blocked: result.blocked }),
      ...(result.reason && { reason: result.reason }),
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
  let blockedAtStart = 0;
  if (raw) {
    state = JSON.parse(raw) as State;
  } else {
    const links = await activeLinks(deps.db);
    for (const l of links) if (l.behind) await deps.enqueueSync(l.id);
    const guilds = [...new Set(links.map((l) => l.guildId))];
    // Guilds the bot is out of: is it back (one look at its guild list)? The rest are not read.
    const out = await returnedGuilds(deps, guilds);
    if (out === null) return { kind: 'continue', delayMs: 1_000, guilds: 0, drifted: 0, pages: 0, blocked: 0 };
    state = { guilds: guilds.filter((g) => !out.has(g)), after: '0' };
    for (const _ of out) deps.blocked?.('reconcile', 'guild_unavailable');
    if (out.size) deps.logger.warn('reconcile blocked: the bot is not in these guilds', { guilds: [...out] });
    blockedAtStart = out.size;
  }
  const counts: ReconcileCounts = { guilds: 0, drifted: 0, pages: 0, blocked: blockedAtStart };
  let listed = false;
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
      const refusal =
        failure.kind === 'guild_unavailable'
          ? failure.code === 50001
            ? await listingRefusal(deps.api, guildId).catch(() => 'guild_unavailable' as const)
            : 'guild_unavailable'
          : null;
      if (refusal === 'members_intent') {
        // The intent is the application's: no guild can be listed. Never a quiet skip: persisted (the
        // dashboard's banner), counted and logged; the next run tries again (one refusal per interval).
        if (await markMembersListingBlocked(deps.db, deps.appKey))
          deps.logger.error(
            `reconcile blocked: the bot application cannot list guild members; turn on ${MEMBERS_INTENT_SETTING}`,
            { guildId },
          );
        deps.blocked?.('reconcile', 'members_intent');
        await deps.redis.del(stateKey);
        return { ...counts, blocked: counts.blocked + state.guilds.length, reason: 'members_intent', kind: 'done' };
      }
      if (refusal === 'guild_unavailable') {
        await openOutage(deps, guildId, failure.kind === 'guild_unavailable' ? failure.code : 10004);
        deps.blocked?.('reconcile', 'guild_unavailable');
        counts.blocked++;
      } else {
        deps.logger.warn('reconcile cannot read the member listing; guild skipped', {
          guildId,
          failure: failure.kind,
          ...('message' in failure ? { error: failure.message } : {}),
        });
      }
      state.guilds.shift();
      state.after = '0';
      continue;
    }
    if (!listed) {
      listed = true;
      if (await clearMembersListingBlocked(deps.db, deps.appKey))
        deps.logger.info('the bot application can list guild members again: the reconcile runs');
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

/**
 * The guilds among `guilds` the bot is still out of. Guilds with an outage are looked up in the bot's own
 * guild list (GET /users/@me/guilds, 200 a page: a handful of calls per run for the whole application,
 * whatever the number of guilds): one found there is back (its outage ends and its links wake). Null when
 * the platform did not answer (rate limit): the run starts again shortly.
 */
async function returnedGuilds(deps: ReconcileDeps, guilds: readonly string[]): Promise<Set<string> | null> {
  const outages = await guildOutages(deps.db, guilds);
  if (outages.size === 0) return new Set();
  const present = new Set<string>();
  try {
    let after: string | undefined;
    for (;;) {
      const page = await deps.api.users.getGuilds({ limit: 200, ...(after ? { after } : {}) });
      for (const g of page) present.add(g.id);
      if (page.length < 200) break;
      after = page[page.length - 1]!.id;
    }
  } catch (err) {
    const failure = classifyPlatformError(err);
    if (failure.kind === 'rate_limited' || failure.kind === 'limiter_unavailable') return null;
    deps.logger.warn("reconcile could not read the bot's guild list", { failure: failure.kind });
    return new Set(outages.keys());
  }
  const still = new Set<string>();
  for (const id of outages.keys()) {
    if (present.has(id)) await guildBack(deps.db, id, deps.logger, (linkId) => deps.enqueueSync(linkId));
    else still.add(id);
  }
  return still;
}

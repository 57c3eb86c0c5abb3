import type { API } from '@discordjs/core/http-only';
import { inTransaction } from '@rolelink/db/client';
import { recordLinkStateEvent } from '@rolelink/db/events';
import { enabledLinksOfGuild } from '@rolelink/db/links';
import { recordGuildOutageNotifications, recordLinkBlockedNotification } from '@rolelink/db/notifications';
import {
  backOffLink,
  blockLink,
  claimGuildProbe,
  clearBackoff,
  closeGuildOutage,
  findGuildOutage,
  findLinkBlock,
  markOutageAnnounced,
  openGuildOutage,
  probeFailed,
  releaseGuildProbe,
  unblockLink,
  type GuildOutage,
  type LinkBlockReason,
} from '@rolelink/db/sync';
import { roleAccessProblem, type LinkBlockReason as DomainBlockReason } from '@rolelink/domain';
import { classifyPlatformError } from '@rolelink/platform-client';
import type { Logger } from '@rolelink/runtime';
import type { Pool, PoolClient } from 'pg';
import type { SliceResult } from './slice-result';

// The platform's refusals that concern a whole guild or a whole link, not one user
// (docs/sync-engine.md "When the platform refuses"): the first one stops the slice, is recorded once, and
// the link makes no further per-user call until a cheap check says the cause is gone.

/** The worker's and the domain's reasons are one list (packages/db cannot import the domain). */
const _sameReasons: [LinkBlockReason, DomainBlockReason] extends [DomainBlockReason, LinkBlockReason] ? true : never =
  true;
void _sameReasons;

export type RefusalContext = {
  /** For the writes that go together (a transaction of their own: `client` holds the link's session lock outside any). */
  db: Pool;
  client: PoolClient;
  api: API;
  link: { id: string; guildId: string; roleId: string };
  logger?: Logger;
  /** Wakes the other links of a guild the bot is back in (their jobs wait for a probe that is no longer due). */
  wake?: (linkId: string) => Promise<unknown>;
};

/** The bot's own user id, asked once per API client (GET /users/@me). */
const botIds = new WeakMap<API, Promise<string>>();
function botUserId(api: API): Promise<string> {
  let id = botIds.get(api);
  if (!id) {
    id = api.users.getCurrent().then((u) => u.id);
    id.catch(() => botIds.delete(api));
    botIds.set(api, id);
  }
  return id;
}

/**
 * Why the bot may not change the role, by the guild's roles and the bot's own (two GETs, which the
 * platform does not count as invalid requests, unlike another refused PUT): a role-access problem, or
 * null when the roles allow it.
 */
export async function readRoleAccess(api: API, guildId: string, roleId: string): Promise<LinkBlockReason | null> {
  const [roles, member] = await Promise.all([
    api.guilds.getRoles(guildId),
    botUserId(api).then((id) => api.guilds.getMember(guildId, id)),
  ]);
  return roleAccessProblem(
    {
      guildId,
      roles: roles.map((r) => ({
        id: r.id,
        position: r.position,
        permissions: BigInt(r.permissions),
        managed: r.managed,
      })),
      botRoleIds: member.roles,
    },
    roleId,
  );
}

const untilMs = (at: Date) => Math.max(1_000, at.getTime() - Date.now());
/**
 * Waiting for a guild's probe: the slice ends as done with a scheduled retry (its own dedup id), not as a
 * delayed 'wanted' job, so a wake-up (a write, the bot's return found by the reconcile or the dashboard)
 * is not swallowed by the long wait; each such wake costs no platform call until the probe is due.
 */
const untilProbe = (at: Date): SliceResult => ({ kind: 'done', retryInMs: untilMs(at) });

/**
 * The guild's outage, checked before a slice makes any call. Null: the bot reaches the guild (or a probe
 * just found it back): sync. Otherwise the slice's result: wait for the next probe, or, once the probes
 * are spent, stop until the bot's return wakes the link.
 */
export async function guildGate(ctx: RefusalContext): Promise<SliceResult | null> {
  const outage = await findGuildOutage(ctx.client, ctx.link.guildId);
  if (!outage) return null;
  if (outage.nextProbeAt === null) return { kind: 'done' };
  if (outage.nextProbeAt.getTime() > Date.now()) return untilProbe(outage.nextProbeAt);
  // One link of the guild probes; the others wait for its answer.
  if (!(await claimGuildProbe(ctx.client, ctx.link.guildId))) return { kind: 'done', retryInMs: 60_000 };
  try {
    await ctx.api.guilds.get(ctx.link.guildId);
  } catch (err) {
    const failure = classifyPlatformError(err);
    if (failure.kind === 'rate_limited' || failure.kind === 'limiter_unavailable') {
      await releaseGuildProbe(ctx.client, ctx.link.guildId);
      return { kind: 'yield', delayMs: failure.retryAfterMs, reason: failure.kind };
    }
    const next = await probeFailed(ctx.client, ctx.link.guildId);
    ctx.logger?.info('guild still unavailable', {
      guildId: ctx.link.guildId,
      probes: next?.probes,
      failure: failure.kind,
    });
    return next?.nextProbeAt ? untilProbe(next.nextProbeAt) : { kind: 'done' };
  }
  await guildBack(ctx.db, ctx.link.guildId, ctx.logger, ctx.wake, ctx.link.id);
  return null;
}

/**
 * The bot reaches the guild again (a probe, the reconcile's look at the bot's guild list, the dashboard):
 * ends the outage, tells the plugins (`link.resumed`, resolved `bot_not_in_guild`) and wakes the guild's links.
 */
export async function guildBack(
  db: Pool,
  guildId: string,
  logger?: Logger,
  wake?: (linkId: string) => Promise<unknown>,
  except?: string,
): Promise<GuildOutage | null> {
  const links = await enabledLinksOfGuild(db, guildId);
  const ended = await inTransaction(db, async (c) => {
    const outage = await closeGuildOutage(c, guildId);
    if (outage?.notified)
      for (const id of links) await recordLinkStateEvent(c, id, 'link.resumed', { resolved: 'bot_not_in_guild' });
    return outage;
  });
  if (!ended) return null;
  logger?.info('guild available again: its links resume', {
    guildId,
    probes: ended.probes,
    out_ms: Date.now() - ended.since.getTime(),
  });
  if (wake) for (const id of links) if (id !== except) await wake(id);
  return ended;
}

/**
 * The bot cannot reach the guild (a call answered 10004, or 50001 on a guild route): opens the guild's
 * outage; the first to meet it tells the plugins (`link.paused`, state `blocked`, reason `bot_not_in_guild`) and the owner.
 * Used by the sync, the reconcile and the drift poll alike.
 */
export async function openOutage(
  deps: { db: Pool; logger?: Logger },
  guildId: string,
  code: number,
): Promise<GuildOutage> {
  const { outage, opened } = await inTransaction(deps.db, async (c) => {
    const o = await openGuildOutage(c, guildId, code);
    if (await markOutageAnnounced(c, guildId)) {
      for (const linkId of await enabledLinksOfGuild(c, guildId)) await recordLinkStateEvent(c, linkId, 'link.paused');
      await recordGuildOutageNotifications(c, guildId);
    }
    return o;
  });
  if (opened)
    deps.logger?.warn(
      'the bot cannot reach the guild (removed, or the guild is gone): its links stop until it is back',
      { guildId, code },
    );
  return outage;
}

/** A slice's call met the outage: the slice stops, with no further per-user call, until the first probe. */
export async function guildUnavailable(ctx: RefusalContext, code: number): Promise<SliceResult> {
  const outage = await openOutage(ctx, ctx.link.guildId, code);
  return outage.nextProbeAt ? untilProbe(outage.nextProbeAt) : { kind: 'done' };
}

/**
 * A role change was refused for the whole link: 50013 (no Manage Roles, the role above the bot's, or
 * managed: the guild's roles say which), 10011 (the role is gone) or 60003 (2FA). Records why once (the
 * plugin's `link.paused`, state `blocked` with the reason, and the owner's notification) and backs the link
 * off (1 min doubling to 1 h) instead of refusing user after user.
 */
export async function linkRefused(
  ctx: RefusalContext,
  kind: 'missing_permission' | 'unknown_role' | 'mfa_required',
): Promise<SliceResult> {
  const reason: LinkBlockReason =
    kind === 'unknown_role'
      ? 'unknown_role'
      : kind === 'mfa_required'
        ? 'mfa_required'
        : ((await readRoleAccess(ctx.api, ctx.link.guildId, ctx.link.roleId).catch(() => null)) ?? 'refused');
  const fresh = await inTransaction(ctx.db, async (c) => {
    const first = await blockLink(c, ctx.link.id, reason);
    if (first) {
      await recordLinkStateEvent(c, ctx.link.id, 'link.paused');
      await recordLinkBlockedNotification(c, ctx.link.id, reason);
    }
    return first;
  });
  if (fresh)
    ctx.logger?.warn('the bot may not change the linked role: the link stops until it can', {
      linkId: ctx.link.id,
      guildId: ctx.link.guildId,
      roleId: ctx.link.roleId,
      reason,
    });
  return { kind: 'yield', delayMs: await backOffLink(ctx.client, ctx.link.id), reason: 'role_unmanageable' };
}

/**
 * A blocked link, after its back-off: re-checked from the guild's roles (no refused call) when the
 * reason is one the roles show; still a problem → back off again. A cause the roles cannot show
 * (mfa_required, refused) is retried by the slice's next call: its first success ends the block
 * ('until_success').
 */
export async function linkGate(ctx: RefusalContext): Promise<SliceResult | 'until_success' | null> {
  const block = await findLinkBlock(ctx.client, ctx.link.id);
  if (!block) return null;
  if (block.reason === 'mfa_required' || block.reason === 'refused') return 'until_success';
  let problem: LinkBlockReason | null;
  try {
    problem = await readRoleAccess(ctx.api, ctx.link.guildId, ctx.link.roleId);
  } catch (err) {
    const failure = classifyPlatformError(err);
    if (failure.kind === 'guild_unavailable') return guildUnavailable(ctx, failure.code);
    if (failure.kind === 'rate_limited' || failure.kind === 'limiter_unavailable')
      return { kind: 'yield', delayMs: failure.retryAfterMs, reason: failure.kind };
    return { kind: 'yield', delayMs: await backOffLink(ctx.client, ctx.link.id), reason: 'role_unmanageable' };
  }
  if (problem) {
    if (problem !== block.reason) await blockLink(ctx.client, ctx.link.id, problem);
    return { kind: 'yield', delayMs: await backOffLink(ctx.client, ctx.link.id), reason: 'role_unmanageable' };
  }
  await linkManageable(ctx);
  return null;
}

/** The role can be changed again (the roles say so, or a call succeeded): the block ends, the plugin hears `link.resumed`. */
export async function linkManageable(ctx: Pick<RefusalContext, 'db' | 'client' | 'link' | 'logger'>): Promise<void> {
  const ended = await inTransaction(ctx.db, async (c) => {
    const b = await unblockLink(c, ctx.link.id);
    if (b) await recordLinkStateEvent(c, ctx.link.id, 'link.resumed', { resolved: b.reason });
    return b;
  });
  if (!ended) return;
  await clearBackoff(ctx.client, ctx.link.id);
  ctx.logger?.info('the linked role can be changed again: the link resumes', {
    linkId: ctx.link.id,
    was: ended.reason,
  });
}

import type {
  AppliedRemovals,
  HeldChangePreview,
  LinkView,
  RemovalProgressView,
  ResendRequestView,
  StripMember,
} from '@rolelink/contracts';
import { inTransaction } from '@rolelink/db/client';
import { linkEventKinds, recordEvent, recordResendRequestedEvent } from '@rolelink/db/events';
import { findLinkAt, forceResync } from '@rolelink/db/links';
import {
  confirmLatestHeldChange,
  latestConfirmedHeldChange,
  latestHeldChange,
  markResendRequested,
  type HeldChange,
} from '@rolelink/db/list';
import { CONFIRM_WINDOW_MS, RESEND_REQUEST_INTERVAL_MS } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';

/** A held change as the dashboard and the CLI show it. */
export function heldChangeView(held: HeldChange): NonNullable<LinkView['held_change']> {
  return {
    change_id: held.changeId,
    kind: held.kind,
    previous: held.previous,
    next: held.next,
    removals: held.removals,
    additions: held.additions,
    created_at: held.createdAt.toISOString(),
    confirmed_at: held.confirmedAt?.toISOString() ?? null,
  };
}

/**
 * The hold the owner has to decide on: the latest unspent one of either kind (a bot's admin-source hold
 * stays shown when a plugin's shrink hold came before it was applied, and the other way round).
 */
export async function pendingHeldChange(
  deps: Pick<AdminDeps, 'db'>,
  linkId: string,
): Promise<(HeldChange & { usedAt: Date | null }) | null> {
  const both = await Promise.all([
    latestHeldChange(deps.db.pool, linkId, 'shrink'),
    latestHeldChange(deps.db.pool, linkId, 'admin_source'),
  ]);
  const pending = both.filter((h) => h !== null && h.usedAt === null) as (HeldChange & { usedAt: Date | null })[];
  return pending.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0] ?? null;
}

async function linkAt(deps: AdminDeps, input: { guildId: string; roleId: string }) {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  return { guildId, roleId, link };
}

const noHeldChange = () => AppError.notFound('No held change to apply for this role link', 'no_held_change');

/**
 * What Apply removals would confirm: the latest held change's numbers and the first members
 * the held list left out (recorded with the hold: the list itself is never stored), by name where the
 * platform can be asked. Who finally loses the role
 * is decided by the list the plugin resends within the hour, which may differ from the held one.
 */
export async function heldChangePreview(
  deps: AdminDeps,
  input: { guildId: string; roleId: string },
): Promise<HeldChangePreview> {
  const { guildId, link } = await linkAt(deps, input);
  const held = await pendingHeldChange(deps, link.id);
  if (!held) throw noHeldChange();
  const facts = deps.members;
  const named = async (id: string): Promise<StripMember> => {
    if (!facts) return { user_id: id, name: null };
    // A name is a courtesy: a platform that does not answer leaves the id, never the dialog, empty.
    const member = await facts.member(guildId, id).catch(() => null);
    return { user_id: id, name: member?.name ?? null };
  };
  return { change: heldChangeView(held), sample: await Promise.all(held.removalSample.map(named)) };
}

/**
 * The owner's "Apply removals" (spec 3.3): confirms the latest held change, opening a one-hour window in
 * which the plugin's resent list is accepted without a further prompt. The list itself was never
 * stored, so the plugin must resend it. With `changeId` (what the owner's dialog showed), a newer hold
 * held since is refused (409) rather than confirmed unseen.
 */
export async function applyRemovals(
  deps: AdminDeps,
  input: { guildId: string; roleId: string; changeId?: string },
): Promise<AppliedRemovals> {
  const { guildId, roleId, link } = await linkAt(deps, input);
  const change = await confirmLatestHeldChange(deps.db.pool, link.id, input.changeId);
  if (!change || !change.confirmedAt) {
    const latest = input.changeId === undefined ? null : await latestHeldChange(deps.db.pool, link.id);
    if (latest && latest.usedAt === null && latest.changeId !== input.changeId) {
      throw new AppError(
        409,
        'A newer large removal was held since this one was shown; review it before applying',
        'held_change_superseded',
      );
    }
    throw noHeldChange();
  }
  const windowEndsAt = new Date(change.confirmedAt.getTime() + CONFIRM_WINDOW_MS).toISOString();
  await recordEvent(deps.db.pool, link.id, 'removal.applied', {
    change_id: change.changeId,
    removals: change.removals,
    window_ends_at: windowEndsAt,
  });
  await audit(deps, deps.db.pool, {
    guildId,
    roleId,
    action: 'removals_applied',
    detail: {
      change_id: change.changeId,
      kind: change.kind,
      previous: change.previous,
      next: change.next,
      removals: change.removals,
      additions: change.additions,
    },
  });
  if (change.kind === 'admin_source') {
    // The list was written and its change consumed: a walk finds the held members again, and the bot
    // removes them under this confirmation (bot worker's admin-guard.ts).
    await forceResync(deps.db.pool, link.id);
    await deps.requestSync(link.id);
  }
  return { change_id: change.changeId, kind: change.kind, removals: change.removals, window_ends_at: windowEndsAt };
}

/** How long a finished removal (applied, or its window ended) stays on the card. */
const SHOWN_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Where the link's latest applied removal stands, for the card and `link show`: the truth the
 * server has, so the "nothing changes until the plugin resends" note goes once the list arrived.
 * `sync`: whether the bot still has removals to make on the link (its journal behind, or pending removals).
 */
export async function removalProgress(
  deps: Pick<AdminDeps, 'db'>,
  linkId: string,
  sync: { removalsOutstanding: boolean },
  now = new Date(),
): Promise<RemovalProgressView | null> {
  const applied = await latestConfirmedHeldChange(deps.db.pool, linkId);
  if (!applied) return null;
  const windowEnds = applied.confirmedAt.getTime() + CONFIRM_WINDOW_MS;
  const waiting = applied.kind === 'shrink' && applied.usedAt === null;
  const state: RemovalProgressView['state'] = waiting
    ? now.getTime() < windowEnds
      ? 'awaiting_list'
      : 'window_ended'
    : sync.removalsOutstanding
      ? 'removing'
      : 'applied';
  if (
    (state === 'applied' || state === 'window_ended') &&
    now.getTime() - applied.confirmedAt.getTime() > SHOWN_AFTER_MS
  )
    return null;
  const requested = applied.resendRequestedAt;
  const availableAt =
    requested && requested.getTime() + RESEND_REQUEST_INTERVAL_MS > now.getTime()
      ? new Date(requested.getTime() + RESEND_REQUEST_INTERVAL_MS).toISOString()
      : null;
  return {
    change_id: applied.changeId,
    kind: applied.kind,
    removals: applied.removals,
    confirmed_at: applied.confirmedAt.toISOString(),
    window_ends_at: new Date(windowEnds).toISOString(),
    state,
    list_resent_at: applied.kind === 'shrink' ? (applied.usedAt?.toISOString() ?? null) : null,
    resend: {
      listening: (await linkEventKinds(deps.db.pool, linkId)).includes('list.resend_requested'),
      requested_at: requested?.toISOString() ?? null,
      available_at: availableAt,
    },
  };
}

/**
 * The owner's "Ask the plugin to resend": a `list.resend_requested` event for the applied
 * removal whose window is open, signed and delivered as every event is, and an audit entry
 * (`list_resend_requested`), in one transaction. A second request within five minutes of the last one
 * queues nothing and answers the standing request (`queued: false`), so a double click or a retried
 * command never sends the plugin two events. Refused (409, with a code) when no applied removal waits
 * for the list, the window ended, the list already arrived, a newer hold came since, or the plugin did
 * not ask for the kind (nothing could reach it).
 */
export async function requestListResend(
  deps: AdminDeps,
  input: { guildId: string; roleId: string },
): Promise<ResendRequestView> {
  const { guildId, roleId, link } = await linkAt(deps, input);
  return inTransaction(deps.db.pool, async (c) => {
    const applied = await latestConfirmedHeldChange(c, link.id, 'shrink');
    if (!applied)
      throw new AppError(
        409,
        "No applied removal waits for the plugin's list: apply the held removal first",
        'no_applied_removal',
      );
    const latest = await latestHeldChange(c, link.id, 'shrink');
    if (latest && latest.changeId !== applied.changeId && latest.usedAt === null) {
      throw new AppError(
        409,
        'A newer large removal was held since this one was applied; review it before asking for the list',
        'held_change_superseded',
      );
    }
    if (applied.usedAt !== null)
      throw new AppError(
        409,
        `The plugin already resent its list (${applied.usedAt.toISOString()}); the bot makes the removals`,
        'list_already_resent',
      );
    const windowEndsAt = new Date(applied.confirmedAt.getTime() + CONFIRM_WINDOW_MS);
    if (windowEndsAt.getTime() <= Date.now())
      throw new AppError(
        409,
        `The one-hour window ended at ${windowEndsAt.toISOString()}; apply the removal again to reopen it`,
        'confirm_window_ended',
      );
    const notListening = () =>
      new AppError(
        409,
        'The plugin did not ask for list.resend_requested events, so it cannot be asked; it must resend its list (PUT or upload) before the window ends',
        'plugin_not_listening',
      );
    if (!(await linkEventKinds(c, link.id)).includes('list.resend_requested')) throw notListening();
    const request = await markResendRequested(c, applied.changeId, RESEND_REQUEST_INTERVAL_MS);
    const view = {
      change_id: applied.changeId,
      window_ends_at: windowEndsAt.toISOString(),
      requested_at: request.requestedAt.toISOString(),
      next_request_at: new Date(request.requestedAt.getTime() + RESEND_REQUEST_INTERVAL_MS).toISOString(),
    };
    if (!request.fresh) return { ...view, queued: false, event_id: null };
    const eventId = await recordResendRequestedEvent(c, link.id, {
      change_id: applied.changeId,
      window_ends_at: view.window_ends_at,
    });
    if (eventId === null) throw notListening();
    await audit(deps, c, {
      guildId,
      roleId,
      action: 'list_resend_requested',
      detail: { change_id: applied.changeId, event_id: `evt_${eventId}`, window_ends_at: view.window_ends_at },
    });
    return { ...view, queued: true, event_id: `evt_${eventId}` };
  });
}

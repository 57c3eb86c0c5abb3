import type { LinkStateFacts } from '@rolelink/domain';
import type { LinkContext } from '../links/links.repo';
import type { Queryable } from '../client/queryable';

/**
 * The stored facts a link's state is derived from (packages/domain `deriveLinkStatus`), besides the link row
 * the caller read already: the guild's outage, the link's block, the listed users no call can reach, the
 * unspent hold (and whether a newer whole list replaced it) and the bot application's refused member
 * listing, in one round trip. Every surface (dashboard, CLI, GET /users meta, events, gauges) reads these.
 */
export type LinkStateExtras = Omit<
  LinkStateFacts,
  | 'enabled'
  | 'plan'
  | 'paidSlots'
  | 'rank'
  | 'memberMode'
  | 'firstListAt'
  | 'userCount'
  | 'appliedCount'
  | 'pendingCount'
  | 'syncBehind'
> & {
  outageSince: Date | null;
  blockSince: Date | null;
};

type Row = {
  rate: number | null;
  outage_since: Date | null;
  block: LinkStateFacts['block'];
  block_since: Date | null;
  not_in_server: number;
  deleted: number;
  hold_kind: 'shrink' | 'admin_source' | null;
  hold_removals: number | null;
  hold_confirmed: boolean | null;
  hold_replaced: boolean | null;
  members_blocked: boolean;
};

/**
 * `appKey`: the bot application's key (bot_application), null where no platform is configured; the member
 * listing is then taken as available.
 */
export async function linkStateExtras(
  db: Queryable,
  link: Pick<LinkContext, 'id' | 'guildId'>,
  appKey: string | null,
): Promise<LinkStateExtras> {
  const { rows } = await db.query<Row>(
    `SELECT l.sync_rate_per_sec AS rate,
            (SELECT since FROM guild_outage WHERE guild_id = l.guild_id) AS outage_since,
            s.blocked_reason AS block, s.blocked_since AS block_since,
            u.not_in_server, u.deleted,
            h.kind AS hold_kind, h.removals AS hold_removals, h.confirmed_at IS NOT NULL AS hold_confirmed,
            (h.kind = 'shrink' AND l.list_replaced_at IS NOT NULL AND l.list_replaced_at > h.created_at) AS hold_replaced,
            EXISTS (SELECT 1 FROM bot_application a WHERE a.app_key = $2 AND a.members_blocked_at IS NOT NULL) AS members_blocked
       FROM role_link l
       LEFT JOIN link_sync_state s ON s.link_id = l.id
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE am.outcome = 'not_in_guild')::int AS not_in_server,
                count(*) FILTER (WHERE am.outcome = 'unknown_user')::int AS deleted
           FROM applied_member am
          WHERE am.link_id = l.id AND am.outcome IN ('not_in_guild', 'unknown_user')
            AND EXISTS (SELECT 1 FROM link_user lu WHERE lu.link_id = am.link_id AND lu.user_id = am.user_id)) u
       LEFT JOIN LATERAL (
         SELECT * FROM (SELECT DISTINCT ON (kind) kind, removals, confirmed_at, created_at, used_at, change_id FROM held_change
                         WHERE link_id = l.id ORDER BY kind, created_at DESC, change_id DESC) latest
          WHERE used_at IS NULL ORDER BY created_at DESC, change_id DESC LIMIT 1) h ON true
      WHERE l.id = $1`,
    [link.id, appKey],
  );
  const r = rows[0];
  if (!r) throw new Error(`role link ${link.id} not found`);
  return {
    ratePerSec: r.rate,
    botNotInGuild: r.outage_since !== null,
    outageSince: r.outage_since,
    block: r.block,
    blockSince: r.block_since,
    notInServer: r.not_in_server,
    deleted: r.deleted,
    hold:
      r.hold_kind === null
        ? null
        : {
            kind: r.hold_kind,
            removals: r.hold_removals ?? 0,
            confirmed: r.hold_confirmed ?? false,
            replaced: r.hold_replaced ?? false,
          },
    membersIntentMissing: r.members_blocked,
  };
}

/** The whole facts of a link whose row (LinkContext) the caller holds. */
export async function linkStateFacts(
  db: Queryable,
  link: LinkContext,
  appKey: string | null,
): Promise<LinkStateFacts & { outageSince: Date | null; blockSince: Date | null }> {
  const extras = await linkStateExtras(db, link, appKey);
  return {
    enabled: link.enabled,
    plan: link.plan,
    paidSlots: link.paidSlots,
    rank: link.rank,
    memberMode: link.memberMode,
    firstListAt: link.firstListAt,
    userCount: link.userCount,
    appliedCount: link.appliedCount,
    pendingCount: link.pendingCount,
    syncBehind: link.syncBehind,
    ...extras,
  };
}

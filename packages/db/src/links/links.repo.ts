import type { Plan } from '@rolelink/domain';
import type { Queryable } from '../client/queryable';

/** What a User Management API request needs to know about its link, read in one round trip. */
export type LinkContext = {
  id: string;
  guildId: string;
  roleId: string;
  enabled: boolean;
  trusted: boolean;
  memberMode: 'handover' | 'keep';
  firstListAt: Date | null;
  userCount: number;
  appliedCount: number;
  pendingCount: number;
  syncBehind: boolean;
  plan: Plan;
  paidSlots: number;
  /** 0-based position among the guild's links, oldest first (slot allowance). */
  rank: number;
  /** The list's version (role_link.list_version, a bigint as text): read before the request reads the list. */
  listVersion: string;
};

const LINK_COLUMNS = `
  l.id::text AS id, l.guild_id::text AS "guildId", l.role_id::text AS "roleId", l.enabled, l.trusted,
  l.member_mode AS "memberMode", l.first_list_at AS "firstListAt", l.user_count AS "userCount",
  l.applied_count AS "appliedCount", l.pending_count AS "pendingCount",
  (l.sync_wanted_seq > l.sync_done_seq) AS "syncBehind",
  g.plan, g.paid_slots AS "paidSlots",
  (SELECT count(*) FROM role_link o WHERE o.guild_id = l.guild_id AND o.id < l.id)::int AS rank,
  l.list_version::text AS "listVersion"`;

/**
 * Runs on every API request. A named (prepared) statement: PostgreSQL plans the join and the rank
 * subquery once per pooled connection instead of on every call (planning was ~70% of its server time).
 */
export async function findLinkByTokenHash(db: Queryable, tokenHash: Buffer): Promise<LinkContext | null> {
  const { rows } = await db.query<LinkContext>({
    name: 'rolelink.find-link-by-token-hash',
    text: `SELECT ${LINK_COLUMNS} FROM role_link l JOIN guild g ON g.id = l.guild_id WHERE l.token_hash = $1`,
    values: [tokenHash],
  });
  return rows[0] ?? null;
}

export async function findLinkAt(db: Queryable, guildId: string, roleId: string): Promise<LinkContext | null> {
  const { rows } = await db.query<LinkContext>(
    `SELECT ${LINK_COLUMNS} FROM role_link l JOIN guild g ON g.id = l.guild_id WHERE l.guild_id = $1 AND l.role_id = $2`,
    [guildId, roleId],
  );
  return rows[0] ?? null;
}

/** The same by the link's id (the state of a link an event or a gauge concerns). */
export async function findLinkById(db: Queryable, linkId: string): Promise<LinkContext | null> {
  const { rows } = await db.query<LinkContext>(
    `SELECT ${LINK_COLUMNS} FROM role_link l JOIN guild g ON g.id = l.guild_id WHERE l.id = $1`,
    [linkId],
  );
  return rows[0] ?? null;
}

/** Locks the link row for the rest of the transaction: list writers of one link run one at a time. */
export async function lockLink(
  db: Queryable,
  linkId: string,
): Promise<{ userCount: number; firstListAt: Date | null; trusted: boolean; listVersion: string } | null> {
  const { rows } = await db.query<{
    userCount: number;
    firstListAt: Date | null;
    trusted: boolean;
    listVersion: string;
  }>(
    `SELECT user_count AS "userCount", first_list_at AS "firstListAt", trusted, list_version::text AS "listVersion" FROM role_link WHERE id = $1 FOR UPDATE`,
    [linkId],
  );
  return rows[0] ?? null;
}

/** What the plugin broker needs to call a link's plugin: its ids, plugin URL and encrypted token. */
export type PluginLinkRow = { id: string; guildId: string; roleId: string; pluginUrl: string; tokenCiphertext: Buffer };

const PLUGIN_LINK_COLUMNS =
  'id::text, guild_id::text AS "guildId", role_id::text AS "roleId", plugin_url AS "pluginUrl", token_ciphertext AS "tokenCiphertext"';

export async function findPluginLink(db: Queryable, linkId: string): Promise<PluginLinkRow | null> {
  const { rows } = await db.query<PluginLinkRow>(`SELECT ${PLUGIN_LINK_COLUMNS} FROM role_link WHERE id = $1`, [
    linkId,
  ]);
  return rows[0] ?? null;
}

/** The same by the link's role: a config save names its link as the admin does, so it is read once, here. */
export async function findPluginLinkByRole(
  db: Queryable,
  guildId: string,
  roleId: string,
): Promise<PluginLinkRow | null> {
  const { rows } = await db.query<PluginLinkRow>(
    `SELECT ${PLUGIN_LINK_COLUMNS} FROM role_link WHERE guild_id = $1 AND role_id = $2`,
    [guildId, roleId],
  );
  return rows[0] ?? null;
}

/** The link's plugin URL, or null when the link is gone. */
export async function findPluginUrl(db: Queryable, linkId: string): Promise<string | null> {
  const { rows } = await db.query<{ plugin_url: string }>('SELECT plugin_url FROM role_link WHERE id = $1', [linkId]);
  return rows[0]?.plugin_url ?? null;
}

import { journalLinkChange } from '../list/list-changes.repo';
import type { Queryable } from '../client/queryable';
import { toStored } from '../client/user-id';

// role_link as the admin (CLI, dashboard) creates, changes, shows and deletes it.

export async function linkExistsForRole(db: Queryable, guildId: string, roleId: string): Promise<boolean> {
  const existing = await db.query('SELECT 1 FROM role_link WHERE guild_id = $1 AND role_id = $2', [guildId, roleId]);
  return Boolean(existing.rowCount);
}

/**
 * A new link row; returns its id. A keep-mode list is authoritative from the start (`firstListAt` set:
 * it holds the current members); a hand-over link waits for the plugin's first full list. A second link
 * for the same role fails with PostgreSQL's unique violation (23505).
 */
export async function insertLink(
  db: Queryable,
  l: {
    guildId: string;
    roleId: string;
    tokenHash: Buffer;
    tokenCiphertext: Buffer;
    pluginUrl: string;
    memberMode: 'handover' | 'keep';
    firstListAt: Date | null;
  },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO role_link (guild_id, role_id, token_hash, token_ciphertext, plugin_url, member_mode, first_list_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now()) RETURNING id::text`,
    [l.guildId, l.roleId, l.tokenHash, l.tokenCiphertext, l.pluginUrl, l.memberMode, l.firstListAt],
  );
  return rows[0]!.id;
}

/**
 * One page of the role's current holders at creation: the bot's applied record (they hold the role
 * now) with the link's holder count, and in keep mode the link's list too. Run inside the caller's
 * transaction. The holder count is kept in hand-over mode as well: "synced" counts the members
 * who already hold the role as soon as a first list names them, not only once the bot's walk has seen
 * them (readers show min(applied, synced set), so before that list it reads 0 of 0).
 */
export async function recordHolderPage(
  db: Queryable,
  linkId: string,
  ids: readonly string[],
  keep: boolean,
): Promise<void> {
  const held = await db.query(
    `INSERT INTO applied_member (link_id, user_id, outcome, updated_at) SELECT $1, ${toStored('x')}, 'applied', now() FROM unnest($2::numeric[]) x ON CONFLICT DO NOTHING`,
    [linkId, ids],
  );
  const listed = keep
    ? await db.query(
        `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x ON CONFLICT DO NOTHING`,
        [linkId, ids],
      )
    : null;
  await db.query(
    'UPDATE role_link SET user_count = user_count + $2, applied_count = applied_count + $3 WHERE id = $1',
    [linkId, listed?.rowCount ?? 0, held.rowCount ?? 0],
  );
}

/** Undoes a creation whose register failed: the link and what it recorded, at once (no purge). Run inside a transaction. */
export async function removeLinkRows(db: Queryable, linkId: string): Promise<void> {
  await db.query('DELETE FROM link_user WHERE link_id = $1', [linkId]);
  await db.query('DELETE FROM applied_member WHERE link_id = $1', [linkId]);
  await db.query('DELETE FROM role_link WHERE id = $1', [linkId]);
}

/** Deletes the link of a role; returns what DELETE {plugin}/config needs, or null when there was none. */
export async function deleteLinkAt(
  db: Queryable,
  guildId: string,
  roleId: string,
): Promise<{ id: string; plugin_url: string; token_ciphertext: Buffer } | null> {
  const { rows } = await db.query<{ id: string; plugin_url: string; token_ciphertext: Buffer }>(
    'DELETE FROM role_link WHERE guild_id = $1 AND role_id = $2 RETURNING id::text, plugin_url, token_ciphertext',
    [guildId, roleId],
  );
  return rows[0] ?? null;
}

/** Sets enabled and/or trusted (null leaves a flag as it is); returns the link's id and which flags changed, or null when there is no link. */
export async function updateLinkFlags(
  db: Queryable,
  guildId: string,
  roleId: string,
  flags: { enabled: boolean | null; trusted: boolean | null },
): Promise<{ id: string; enabledChanged: boolean; trustedChanged: boolean } | null> {
  // The CTE reads (and locks) the row before the update, so each flag's change is told from its old value.
  const { rows } = await db.query<{ id: string; enabledChanged: boolean; trustedChanged: boolean }>(
    `WITH old AS (SELECT id, enabled, trusted FROM role_link WHERE guild_id = $1 AND role_id = $2 FOR UPDATE)
     UPDATE role_link l SET enabled = COALESCE($3, l.enabled), trusted = COALESCE($4, l.trusted), updated_at = now()
       FROM old WHERE l.id = old.id
     RETURNING l.id::text, l.enabled IS DISTINCT FROM old.enabled AS "enabledChanged", l.trusted IS DISTINCT FROM old.trusted AS "trustedChanged"`,
    [guildId, roleId, flags.enabled, flags.trusted],
  );
  return rows[0] ?? null;
}

/** The columns `link show` adds to the request-path link context. */
export async function linkDetails(
  db: Queryable,
  linkId: string,
): Promise<{
  plugin_url: string;
  sync_rate_per_sec: number | null;
  last_sync_at: Date | null;
  created_at: Date;
} | null> {
  const { rows } = await db.query<{
    plugin_url: string;
    sync_rate_per_sec: number | null;
    last_sync_at: Date | null;
    created_at: Date;
  }>('SELECT plugin_url, sync_rate_per_sec, last_sync_at, created_at FROM role_link WHERE id = $1', [linkId]);
  return rows[0] ?? null;
}

/** Role ids of a guild's links, oldest first (slot order: the newest beyond the allowance are paused). */
export async function guildLinkRoles(db: Queryable, guildId: string): Promise<{ roleId: string; pluginUrl: string }[]> {
  const { rows } = await db.query<{ role_id: string; plugin_url: string }>(
    'SELECT role_id::text, plugin_url FROM role_link WHERE guild_id = $1 ORDER BY created_at, id',
    [guildId],
  );
  return rows.map((r) => ({ roleId: r.role_id, pluginUrl: r.plugin_url }));
}

/** Guilds with at least one link, in id order (`rolelink doctor` without a guild checks each). */
export async function linkedGuildIds(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ guild_id: string }>('SELECT DISTINCT guild_id::text FROM role_link ORDER BY 1');
  return rows.map((r) => r.guild_id);
}

/** The link of a role with its plugin URL (the configuration tab and `rolelink config`), or null. */
export async function findLinkPlugin(
  db: Queryable,
  guildId: string,
  roleId: string,
): Promise<{ id: string; pluginUrl: string } | null> {
  const { rows } = await db.query<{ id: string; plugin_url: string }>(
    'SELECT id::text, plugin_url FROM role_link WHERE guild_id = $1 AND role_id = $2',
    [guildId, roleId],
  );
  const link = rows[0];
  return link ? { id: link.id, pluginUrl: link.plugin_url } : null;
}

/**
 * "Resync now": every back-off of the link ends (members whose add or removal failed, and the link's own
 * back-off after missing permissions), and a full walk is journalled, so the next pass diffs the whole list
 * against the applied record and retries what failed. Run inside the caller's transaction.
 */
export async function forceResync(db: Queryable, linkId: string): Promise<{ retried: number }> {
  const r = await db.query(
    'UPDATE applied_member SET next_retry_at = localtimestamp(3) WHERE link_id = $1 AND next_retry_at > localtimestamp(3)',
    [linkId],
  );
  await db.query('UPDATE link_sync_state SET backoff_until = NULL WHERE link_id = $1 AND backoff_until IS NOT NULL', [
    linkId,
  ]);
  await journalLinkChange(db, linkId, 'walk');
  return { retried: r.rowCount ?? 0 };
}

/** The guild's links' roles, oldest link first: the order the slot allowance pauses by (newest beyond it). */
export async function linkRolesByAge(db: Queryable, guildId: string): Promise<string[]> {
  const { rows } = await db.query<{ role_id: string }>(
    'SELECT role_id::text FROM role_link WHERE guild_id = $1 ORDER BY id',
    [guildId],
  );
  return rows.map((r) => r.role_id);
}

/** Enabled links of a guild, oldest first: the ones a guild outage pauses and its end wakes. */
export async function enabledLinksOfGuild(db: Queryable, guildId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM role_link WHERE guild_id = $1 AND enabled ORDER BY id',
    [guildId],
  );
  return rows.map((r) => r.id);
}

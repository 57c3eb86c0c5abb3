import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { fromStored, toStored } from '@rolelink/db/client';
import { CORRECT_BOT_PERMISSIONS, CORRECT_RULES } from '@rolelink/platform-emulator';

/** Test helpers: rows written with SQL the way the API and link creation leave them (no API needed). */

export const GUILD_A = '700000000000000001';
export const GUILD_B = '700000000000000002';
export const ROLE = {
  above: '710000000000000001',
  bot: '710000000000000002',
  linked: '710000000000000003',
  other: '710000000000000004',
  third: '710000000000000005',
} as const;
export const MEMBER_START = 800000000000000000n;

/** `count` consecutive user ids from `start` (the emulator's generated members use the same scheme). */
export function ids(count: number, start = MEMBER_START): string[] {
  return Array.from({ length: count }, (_, i) => (start + BigInt(i)).toString());
}

/**
 * Accounts that exist on the platform without being in the test guilds: the "strangers" tests list
 * (member routes answer 10007 Unknown Member for them; an id no account has answers 10013 Unknown User).
 */
export const STRANGERS = ['899999999999999997', '899999999999999998', '899999999999999999'] as const;

/** A correctly installed guild (the Server Members intent, the bot's role with Manage Roles and View Audit Log). */
export function guildSeed(
  id: string,
  members: number,
  opts: { holders?: { userIds: string[]; roles: string[] }[] } = {},
) {
  return {
    id,
    ownerId: '790000000000000001',
    rules: CORRECT_RULES,
    users: [...STRANGERS],
    roles: [
      { id: ROLE.above, name: 'above-bot', position: 10 },
      { id: ROLE.bot, name: 'rolelink', position: 5, permissions: CORRECT_BOT_PERMISSIONS },
      { id: ROLE.linked, name: 'linked', position: 3 },
      { id: ROLE.other, name: 'other', position: 2 },
      { id: ROLE.third, name: 'third', position: 1 },
    ],
    botRoleId: ROLE.bot,
    generateMembers: { count: members, startId: MEMBER_START.toString() },
    members: (opts.holders ?? []).flatMap((h) => h.userIds.map((userId) => ({ userId, roles: h.roles }))),
  };
}

export async function upsertGuild(
  db: Pool,
  id: string,
  plan: 'free' | 'premium' = 'free',
  paidSlots = 0,
): Promise<void> {
  await db.query(
    `INSERT INTO guild (id, plan, paid_slots, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (id) DO UPDATE SET plan = EXCLUDED.plan, paid_slots = EXCLUDED.paid_slots, updated_at = now()`,
    [id, plan, paidSlots],
  );
}

export async function insertLink(
  db: Pool,
  o: { guildId: string; roleId: string; memberMode?: 'handover' | 'keep'; firstList?: boolean; enabled?: boolean },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO role_link (guild_id, role_id, token_hash, token_ciphertext, plugin_url, enabled, member_mode, first_list_at, updated_at)
     VALUES ($1, $2, $3, $4, 'https://plugin.example.com', $5, $6, $7, now()) RETURNING id::text`,
    [
      o.guildId,
      o.roleId,
      randomBytes(32),
      randomBytes(48),
      o.enabled ?? true,
      o.memberMode ?? 'handover',
      o.firstList === false ? null : new Date(),
    ],
  );
  return rows[0]!.id;
}

/** A full list write as the API does it: replace, counters, first-list mark and the outbox in one transaction. */
export async function writeList(db: Pool, linkId: string, userIds: string[]): Promise<void> {
  const c = await db.connect();
  try {
    await c.query('BEGIN');
    await c.query('DELETE FROM link_user WHERE link_id = $1', [linkId]);
    await c.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('u')} FROM unnest($2::numeric[]) u ON CONFLICT DO NOTHING`,
      [linkId, userIds],
    );
    await c.query(
      `UPDATE role_link SET user_count = (SELECT count(*) FROM link_user WHERE link_id = $1), sync_wanted_seq = sync_wanted_seq + 1,
              first_list_at = COALESCE(first_list_at, now()) WHERE id = $1`,
      [linkId],
    );
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  } finally {
    c.release();
  }
}

/** The hand-over snapshot link creation takes: the role's current holders recorded as applied. */
export async function snapshotHolders(db: Pool, linkId: string, holders: string[]): Promise<void> {
  await db.query(
    `INSERT INTO applied_member (link_id, user_id, outcome) SELECT $1, ${toStored('u')}, 'applied' FROM unnest($2::numeric[]) u`,
    [linkId, holders],
  );
}

export async function linkRow(db: Pool, linkId: string) {
  const { rows } = await db.query<{
    applied_count: number;
    pending_count: number;
    sync_rate_per_sec: number | null;
    sync_wanted_seq: string;
    sync_done_seq: string;
    last_sync_at: Date | null;
  }>(
    'SELECT applied_count, pending_count, sync_rate_per_sec, sync_wanted_seq::text, sync_done_seq::text, last_sync_at FROM role_link WHERE id = $1',
    [linkId],
  );
  return rows[0]!;
}

export async function outcomes(db: Pool, linkId: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ user_id: string; outcome: string }>(
    `SELECT ${fromStored('user_id')} AS user_id, outcome FROM applied_member WHERE link_id = $1`,
    [linkId],
  );
  return Object.fromEntries(rows.map((r) => [r.user_id, r.outcome]));
}

// The shared progress-following wait (test/support/until.ts), re-exported for the bot's tests that import it from here.
export { waitFor } from '../../../../test/support/until';

export const sorted = (xs: readonly string[]) =>
  [...xs].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));

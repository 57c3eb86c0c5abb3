import type { Db } from '@rolelink/db/client';
import { encryptToken, generateToken, hashToken, type Plan } from '@rolelink/domain';
import { fromStored } from '@rolelink/db/client';

export const TEST_SECRET_KEY = Buffer.alloc(32, 7);

let nextSnowflake = 400000000000000000n;
/** Distinct snowflakes for guilds, roles and users within one test run. */
export function snowflake(): string {
  nextSnowflake += 1n;
  return nextSnowflake.toString();
}

/** `count` ascending user ids starting at `from` (17+ digits). */
export function userIds(count: number, from = 100000000000000000n): string[] {
  return Array.from({ length: count }, (_, i) => (from + BigInt(i)).toString());
}

export async function seedGuild(
  db: Db,
  opts: { id?: string; plan?: Plan; paidSlots?: number; ownerId?: string } = {},
): Promise<string> {
  const id = opts.id ?? snowflake();
  await db.pool.query(
    `INSERT INTO guild (id, owner_id, plan, paid_slots, updated_at) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (id) DO UPDATE SET plan = EXCLUDED.plan, paid_slots = EXCLUDED.paid_slots, updated_at = now()`,
    [id, opts.ownerId ?? snowflake(), opts.plan ?? 'free', opts.paidSlots ?? 0],
  );
  return id;
}

/** The token with its last character changed: always a different token (appending a fixed 'x' was the same token whenever it already ended in x). */
export function tamperedToken(token: string): string {
  return token.slice(0, -1) + (token.endsWith('x') ? 'y' : 'x');
}

export type SeededLink = { linkId: string; guildId: string; roleId: string; token: string };

/**
 * A link row written straight to the database, as link creation leaves it after a successful
 * register. For tests of readers of links (API, worker); link creation itself is tested through the CLI.
 */
export async function seedLink(
  db: Db,
  opts: {
    guildId?: string;
    roleId?: string;
    plan?: Plan;
    enabled?: boolean;
    trusted?: boolean;
    memberMode?: 'handover' | 'keep';
    firstList?: boolean;
  } = {},
): Promise<SeededLink> {
  const guildId = opts.guildId ?? (await seedGuild(db, { plan: opts.plan }));
  const roleId = opts.roleId ?? snowflake();
  const token = generateToken();
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO role_link (guild_id, role_id, token_hash, token_ciphertext, plugin_url, enabled, trusted, member_mode, first_list_at, updated_at)
     VALUES ($1, $2, $3, $4, 'https://plugin.example.com', $5, $6, $7, $8, now()) RETURNING id::text`,
    [
      guildId,
      roleId,
      hashToken(token),
      encryptToken(token, TEST_SECRET_KEY),
      opts.enabled ?? true,
      opts.trusted ?? false,
      opts.memberMode ?? 'handover',
      opts.firstList === false ? null : new Date(),
    ],
  );
  return { linkId: rows[0]!.id, guildId, roleId, token };
}

export async function listOf(db: Db, linkId: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ user_id: string }>(
    `SELECT ${fromStored('user_id')} AS user_id FROM link_user WHERE link_id = $1 ORDER BY link_user.user_id`,
    [linkId],
  );
  return rows.map((r) => r.user_id);
}

/** A link's list counters as the list repositories change them: user count, wanted sync sequence, list version. */
export async function listCounters(
  db: Db,
  linkId: string,
): Promise<{ user_count: number; seq: string; version: string }> {
  const { rows } = await db.pool.query<{ user_count: number; seq: string; version: string }>(
    'SELECT user_count, sync_wanted_seq::text AS seq, list_version::text AS version FROM role_link WHERE id = $1',
    [linkId],
  );
  return rows[0]!;
}

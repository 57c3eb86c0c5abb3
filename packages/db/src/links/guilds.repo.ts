import type { Plan } from '@rolelink/domain';
import type { Queryable } from '../client/queryable';

// guild: plans and paid slots, written by the admin (CLI, dashboard) and read with their links' count.

/** The guild's plan, creating it on the free plan when the service has never seen it. */
export async function ensureGuild(db: Queryable, guildId: string): Promise<Plan> {
  const { rows } = await db.query<{ plan: Plan }>(
    `INSERT INTO guild (id, plan, updated_at) VALUES ($1, 'free', now())
     ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id RETURNING plan`,
    [guildId],
  );
  return rows[0]!.plan;
}

/** Sets plan and (when given) paid slots and owner, creating the guild if new; returns the stored owner and slots. */
export async function upsertGuildPlan(
  db: Queryable,
  g: { guildId: string; ownerId: string | null; plan: Plan; paidSlots: number | null },
): Promise<{ owner_id: string | null; paid_slots: number }> {
  const { rows } = await db.query<{ owner_id: string | null; paid_slots: number }>(
    `INSERT INTO guild (id, owner_id, plan, paid_slots, updated_at) VALUES ($1, $2, $3, COALESCE($4, 0), now())
     ON CONFLICT (id) DO UPDATE SET plan = EXCLUDED.plan, paid_slots = COALESCE($4, guild.paid_slots),
       owner_id = COALESCE($2, guild.owner_id), updated_at = now()
     RETURNING owner_id::text, paid_slots`,
    [g.guildId, g.ownerId, g.plan, g.paidSlots],
  );
  return rows[0]!;
}

/** Plan, paid slots and link count of the known guilds among `guildIds`, in one query. */
export async function guildPlanRows(
  db: Queryable,
  guildIds: readonly string[],
): Promise<{ id: string; plan: Plan; paid_slots: number; links: number }[]> {
  const { rows } = await db.query<{ id: string; plan: Plan; paid_slots: number; links: number }>(
    `SELECT g.id::text, g.plan, g.paid_slots, (SELECT count(*)::int FROM role_link l WHERE l.guild_id = g.id) AS links
     FROM guild g WHERE g.id = ANY($1::bigint[])`,
    [guildIds],
  );
  return rows;
}

/** The guild's plan before a change, its row locked (setPlan compares which links it pauses); null for a new guild. */
export async function lockGuildPlan(
  db: Queryable,
  guildId: string,
): Promise<{ plan: 'free' | 'premium'; paid_slots: number } | null> {
  const { rows } = await db.query<{ plan: 'free' | 'premium'; paid_slots: number }>(
    'SELECT plan::text AS plan, paid_slots FROM guild WHERE id = $1 FOR UPDATE',
    [guildId],
  );
  return rows[0] ?? null;
}

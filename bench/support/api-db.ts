// The API benchmark's database: one migrated scratch database per run (`rolelink_bench_api_<random>`, so two
// runs at once never drop each other's), and link rows seeded
// the way link creation leaves them (guild + role_link with the token's SHA-256 and its ciphertext).
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { admin, createMigratedDb } from './bench-db';
import { encryptToken, generateToken, hashToken, type Plan } from '@rolelink/domain';

export { ADMIN_URL, REDIS_URL, ROOT, dbUrl } from './bench-db';
/** This run's database: its own name, as the sync benchmarks' (sync-support.ts). */
export const BENCH_DB = `rolelink_bench_api_${randomBytes(3).toString('hex')}`;

/** Creates the bench database, then applies the migrations with the project's command. */
export function createBenchDb(): Promise<string> {
  return createMigratedDb(BENCH_DB);
}

export function dropBenchDb(): Promise<void> {
  return admin(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
}

/** Any key: the API never decrypts a token; the ciphertext only has to look like what link creation stores. */
const SEED_KEY = randomBytes(32);
let nextSnowflake = 500000000000000000n;
export function snowflake(): string {
  nextSnowflake += 1n;
  return nextSnowflake.toString();
}

export async function seedGuild(pool: Pool, plan: Plan): Promise<string> {
  const id = snowflake();
  await pool.query(`INSERT INTO guild (id, owner_id, plan, paid_slots, updated_at) VALUES ($1, $2, $3, 0, now())`, [
    id,
    snowflake(),
    plan,
  ]);
  return id;
}

export type BenchLink = { linkId: string; guildId: string; roleId: string; token: string; base: string };

/** A link after a successful register, its first list already received (no hand-over baseline). */
export async function seedLink(pool: Pool, guildId: string, opts: { trusted: boolean }): Promise<BenchLink> {
  const roleId = snowflake();
  const token = generateToken();
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO role_link (guild_id, role_id, token_hash, token_ciphertext, plugin_url, enabled, trusted, member_mode, first_list_at, updated_at)
     VALUES ($1, $2, $3, $4, 'https://plugin.example.com', true, $5, 'handover', now(), now()) RETURNING id::text`,
    [guildId, roleId, hashToken(token), encryptToken(token, SEED_KEY), opts.trusted],
  );
  return { linkId: rows[0]!.id, guildId, roleId, token, base: `/api/role-link/${guildId}/${roleId}` };
}

// The two layouts of `pnpm bench partition`, side by side in one scratch database: schema
// `flat` holds every table as the migrations make them (today's link_user), schema `part` the same tables
// with link_user rebuilt as `PARTITION BY HASH (link_id)` in 16 partitions, with the same columns, key and
// partial indexes (read from `flat`, so a later migration's index is carried over without editing this).
// A pool whose connections carry `search_path=<schema>` runs the db package's own functions on one layout
// or the other: every statement names its tables unqualified.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from 'pg';
import { dbUrl, ROOT } from './bench-db';

export const LAYOUTS = ['flat', 'part'] as const;
export type Layout = (typeof LAYOUTS)[number];
export const LAYOUT_NAMES: Record<Layout, string> = { flat: "today's table", part: '16 hash partitions' };
export const PARTITIONS = 16;

/** Stored value (id − 2^63) of user id 10^18: the lists' ids are 19-digit, like today's snowflakes. */
const BASE = -8223372036854775808n;

/** The database URL whose connections resolve unqualified table names in `layout`'s schema. */
export function layoutUrl(database: string, layout: Layout): string {
  const u = new URL(dbUrl(database));
  u.searchParams.set('options', `-c search_path=${layout}`);
  return u.toString();
}

/** Every migration, in order, as plain SQL, into a schema of its own (the bookkeeping table is not needed here). */
export async function migrateInto(c: Client, layout: Layout): Promise<void> {
  const dir = path.join(ROOT, 'prisma', 'migrations');
  const names = readdirSync(dir)
    .filter((d) => /^\d{14}_/.test(d))
    .sort();
  await c.query(`CREATE SCHEMA ${layout}; SET search_path = ${layout}`);
  for (const d of names) await c.query(readFileSync(path.join(dir, d, 'migration.sql'), 'utf8'));
  await c.query('RESET search_path');
}

/** link_user's key and indexes as the migrations left them in `flat`: rebuilt after each load, on both layouts. */
export type Keys = { primaryKey: string; indexes: string[] };

export async function readKeys(c: Client): Promise<Keys> {
  const { rows: pk } = await c.query<{ def: string }>(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'flat.link_user'::regclass AND contype = 'p'`,
  );
  const { rows: ix } = await c.query<{ def: string }>(
    `SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'flat' AND tablename = 'link_user' AND indexname <> 'link_user_pkey' ORDER BY indexname`,
  );
  if (pk.length !== 1) throw new Error('flat.link_user has no primary key');
  return { primaryKey: pk[0]!.def, indexes: ix.map((r) => r.def) };
}

/**
 * Both link_user tables without key or index, ready to load: `flat`'s dropped, `part`'s replaced by the
 * partitioned table (columns, NOT NULLs and defaults copied from `flat`) and its partitions, named by
 * remainder (link_user_p00 … p15).
 */
export async function prepareForLoad(c: Client, keys: Keys): Promise<void> {
  await c.query('ALTER TABLE flat.link_user DROP CONSTRAINT link_user_pkey');
  for (const def of keys.indexes) await c.query(`DROP INDEX flat.${/INDEX (\S+) ON/.exec(def)![1]}`);
  await c.query('DROP TABLE part.link_user');
  await c.query(
    'CREATE TABLE part.link_user (LIKE flat.link_user INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY HASH (link_id)',
  );
  for (let r = 0; r < PARTITIONS; r++)
    await c.query(
      `CREATE TABLE part.${partitionName(r)} PARTITION OF part.link_user FOR VALUES WITH (MODULUS ${PARTITIONS}, REMAINDER ${r})`,
    );
}

export const partitionName = (remainder: number) => `link_user_p${String(remainder).padStart(2, '0')}`;

/** The key and indexes built on a loaded layout, as `flat` had them (on `part`, each built per partition). */
export async function buildKeys(c: Client, layout: Layout, keys: Keys): Promise<void> {
  await c.query(`ALTER TABLE ${layout}.link_user ADD CONSTRAINT link_user_pkey ${keys.primaryKey}`);
  for (const def of keys.indexes) {
    if (!def.includes(' ON flat.link_user ')) throw new Error(`unexpected index definition: ${def}`);
    await c.query(def.replace(' ON flat.link_user ', ` ON ${layout}.link_user `));
  }
}

/** A list's sizes: one link per entry, link ids 1, 2, … in order. */
export type Lists = number[];

/**
 * `rows` rows over 10,001 links: one premium list of half of them (link 1: the worst case for hash
 * partitioning by link, whose partition holds the whole list), and the other half over 10,000 links whose
 * sizes follow a power law (Zipf, exponent 1.1, at least 1 row: at 30M, 2.3M for the largest, 1.1M for
 * the second, ~1,100 for the 1,000th, ~90 for the last), as the scale simulation describes the guilds.
 */
export function listSizes(rows: number): Lists {
  const big = Math.floor(rows / 2);
  const K = 10_000;
  const weights = Array.from({ length: K }, (_, k) => (k + 1) ** -1.1);
  const total = weights.reduce((a, b) => a + b, 0);
  return [big, ...weights.map((w) => Math.max(1, Math.round(((rows - big) * w) / total)))];
}

/**
 * Loads the lists into `layout`'s link_user in one statement (sizes and links as two array parameters,
 * the rows generated in PostgreSQL, never in Node). Each list's ids are 19-digit ids 37 apart; every
 * thousandth row expires (in the past), so the expiry sweep's partial indexes hold ~0.1% of the rows.
 */
export async function loadLists(c: Client, layout: Layout, lists: Lists): Promise<void> {
  const ids = lists.map((_, i) => i + 1);
  await c.query(
    `INSERT INTO ${layout}.link_user (link_id, user_id, expires_at)
     SELECT id, (${BASE})::bigint + 37 * g, CASE WHEN g % 1000 = 7 THEN timestamptz '2026-01-01' END
     FROM (SELECT s.id, generate_series(1, s.n)::bigint AS g FROM unnest($1::bigint[], $2::int[]) AS s(id, n)) x`,
    [ids, lists],
  );
}

/**
 * A guild and a trusted, enabled premium link row for every link id 1…n in `layout` (one guild each, as the
 * simulation seeds them): the API's writes lock the link row, and the expiry sweep joins it.
 */
export async function seedLinks(c: Client, layout: Layout, n: number): Promise<void> {
  await c.query(
    `INSERT INTO ${layout}.guild (id, owner_id, plan, paid_slots, updated_at) SELECT g, g, 'premium', 0, now() FROM generate_series(1, ${n}) g`,
  );
  await c.query(
    `INSERT INTO ${layout}.role_link (id, guild_id, role_id, token_hash, token_ciphertext, plugin_url, enabled, trusted, member_mode, first_list_at, updated_at)
     SELECT g, g, g, decode(md5(g::text), 'hex'), '\\x01', 'https://plugin.example.com', true, true, 'keep', now(), now() FROM generate_series(1, ${n}) g`,
  );
}

/** The partition (remainder) PostgreSQL routes a link's rows to. */
export async function partitionOf(c: Client, linkId: number): Promise<string> {
  const { rows } = await c.query<{ r: number }>(
    `SELECT r FROM generate_series(0, ${PARTITIONS - 1}) r WHERE satisfies_hash_partition('part.link_user'::regclass, ${PARTITIONS}, r, $1::bigint)`,
    [linkId],
  );
  return partitionName(rows[0]!.r);
}

export type Sizes = { heap: number; primaryKey: number; otherIndexes: number; total: number };

/** link_user's bytes in `layout`: on `part`, summed over its partitions (the parent holds none). */
export async function sizes(c: Client, layout: Layout): Promise<Sizes> {
  const relations =
    layout === 'flat'
      ? `SELECT 'flat.link_user'::regclass AS oid`
      : `SELECT inhrelid AS oid FROM pg_inherits WHERE inhparent = 'part.link_user'::regclass`;
  const { rows } = await c.query<{ heap: string; pk: string; idx: string; total: string }>(
    `SELECT sum(pg_relation_size(t.oid))::text AS heap,
            sum((SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i WHERE i.indrelid = t.oid AND i.indisprimary))::text AS pk,
            sum(pg_indexes_size(t.oid))::text AS idx,
            sum(pg_total_relation_size(t.oid))::text AS total
     FROM (${relations}) t`,
  );
  const r = rows[0]!;
  return {
    heap: Number(r.heap),
    primaryKey: Number(r.pk),
    otherIndexes: Number(r.idx) - Number(r.pk),
    total: Number(r.total),
  };
}

export type PartitionSpread = { name: string; rows: number; bytes: number }[];

/** Each partition's rows (the planner's count after ANALYZE) and bytes, tables and indexes. */
export async function partitionSpread(c: Client): Promise<PartitionSpread> {
  const { rows } = await c.query<{ name: string; rows: string; bytes: string }>(
    `SELECT c.relname AS name, c.reltuples::bigint::text AS rows, pg_total_relation_size(c.oid)::text AS bytes
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'part.link_user'::regclass ORDER BY c.relname`,
  );
  return rows.map((r) => ({ name: r.name, rows: Number(r.rows), bytes: Number(r.bytes) }));
}

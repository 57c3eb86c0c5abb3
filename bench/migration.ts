// `pnpm bench migration [--rows 30000000]`: how long the user-id migration
// (prisma/migrations/20261125190000_user_id_offset) takes on a full premium list, against the same rewrite
// done by hand in raw PostgreSQL in the same run.
//
// The scratch database is migrated up to the migration before it and loaded the way a link of `rows`
// users, all applied, leaves it: `rows` rows in link_user and in applied_member (both keys and
// applied_member's partial indexes), a journal of 10,000 rows, a walk's position and a held change.
// Then, timed, one after the other:
// - baseline: raw PostgreSQL writing the same two big tables once, shifted by 2^63 (CREATE TABLE AS, then
//   the same indexes built once): the least a rewrite of those rows can cost on this machine;
// - the migration itself (its SQL file, one implicit transaction, as `prisma migrate deploy` sends it);
// - the baseline again (cache and load move between runs; two bracket the migration).
// The load average is printed at the start and at the end (docs/benchmarks.md records both).
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { admin, dbUrl, ROOT } from './support/bench-db';

const TARGET = '20261125190000_user_id_offset';
const MIGRATIONS = path.join(ROOT, 'prisma', 'migrations');
const BIG = ['link_user', 'applied_member'] as const;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function timed(c: Client, sql: string): Promise<number> {
  const t = performance.now();
  await c.query(sql);
  return performance.now() - t;
}

/** Every migration before TARGET, in order, applied as plain SQL (the bookkeeping table is not needed here). */
async function migrateBefore(c: Client): Promise<void> {
  const dirs = readdirSync(MIGRATIONS)
    .filter((d) => /^\d{14}_/.test(d) && d < TARGET)
    .sort();
  for (const d of dirs) await c.query(readFileSync(path.join(MIGRATIONS, d, 'migration.sql'), 'utf8'));
}

async function loadList(c: Client, rows: number): Promise<void> {
  // Ids as the code before this migration stored them: the id itself (19 digits, like today's snowflakes).
  const id = `(1000000000000000000 + g * 37)`;
  for (const sql of [
    `INSERT INTO guild (id, plan, updated_at) VALUES (1, 'premium', now())`,
    `INSERT INTO role_link (id, guild_id, role_id, token_hash, token_ciphertext, plugin_url, member_mode, first_list_at, user_count, updated_at)
       VALUES (1, 1, 2, '\\x01', '\\x01', 'https://plugin.example.com', 'keep', now(), ${rows}, now())`,
    'ALTER TABLE link_user DROP CONSTRAINT link_user_pkey',
    'ALTER TABLE applied_member DROP CONSTRAINT applied_member_pkey',
    `INSERT INTO link_user (link_id, user_id) SELECT 1, ${id} FROM generate_series(1, ${rows}) g`,
    `INSERT INTO applied_member (link_id, user_id, outcome, updated_at, granted) SELECT 1, ${id}, 'applied', now(), true FROM generate_series(1, ${rows}) g`,
    `INSERT INTO list_change (link_id, seq, user_id, op) SELECT 1, 2 + g / 100, ${id}, 'add' FROM generate_series(1, 10000) g`,
    `INSERT INTO list_change (link_id, seq, user_id, op) VALUES (1, 1, 0, 'walk')`,
    `INSERT INTO link_sync_state (link_id, cursor, applied_cutoff, journal_seq) VALUES (1, 1000000000000000037, 1000000000000370000, 1)`,
    `INSERT INTO held_change (change_id, link_id, previous, next, removals, removal_sample, created_at)
       VALUES (gen_random_uuid(), 1, ${rows}, 0, ${rows}, ARRAY[1000000000000000037, 1000000000000000074]::bigint[], now())`,
    `SET maintenance_work_mem = '512MB'`,
    'ALTER TABLE link_user ADD CONSTRAINT link_user_pkey PRIMARY KEY (link_id, user_id)',
    'ALTER TABLE applied_member ADD CONSTRAINT applied_member_pkey PRIMARY KEY (link_id, user_id)',
    'VACUUM ANALYZE link_user',
    'VACUUM ANALYZE applied_member',
    'CHECKPOINT',
  ]) {
    await c.query(sql);
  }
}

/** Raw PostgreSQL: each big table written once more, shifted by `shift` ('-' or '+' 2^63), and its indexes built once. */
async function baseline(c: Client, shift: '-' | '+'): Promise<number> {
  let ms = 0;
  for (const table of BIG) {
    const { rows: cols } = await c.query<{ name: string }>(
      `SELECT attname AS name FROM pg_attribute WHERE attrelid = '${table}'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    );
    const select = cols
      .map((col) => (col.name === 'user_id' ? `user_id ${shift} 9223372036854775807 ${shift} 1 AS user_id` : col.name))
      .join(', ');
    const { rows: indexes } = await c.query<{ def: string }>(
      `SELECT indexdef AS def FROM pg_indexes WHERE tablename = '${table}'`,
    );
    const copy = `bench_${table}`;
    ms += await timed(c, `CREATE TABLE ${copy} AS SELECT ${select} FROM ${table}`);
    for (const { def } of indexes)
      ms += await timed(c, def.replace(/INDEX (\S+) ON public\.\S+/, `INDEX bench_$1 ON ${copy}`));
    await c.query(`DROP TABLE ${copy}`);
  }
  await c.query('CHECKPOINT');
  return ms;
}

export async function run(): Promise<void> {
  const rows = arg('rows', 30_000_000);
  const name = `rolelink_bench_migration_${process.pid}`;
  console.log(
    `user-id migration at ${rows.toLocaleString('en-US')} rows per table (link_user, applied_member); load average ${load()} (1 / 5 / 15 min)`,
  );
  await admin(`CREATE DATABASE ${name}`);
  const c = new Client({ connectionString: dbUrl(name) });
  await c.connect();
  try {
    await c.query(`SET maintenance_work_mem = '512MB'`);
    await migrateBefore(c);
    const loadStarted = performance.now();
    await loadList(c, rows);
    const { rows: size } = await c.query<{ mb: number }>(
      `SELECT (pg_total_relation_size('link_user') + pg_total_relation_size('applied_member')) / 1048576 AS mb`,
    );
    console.log(`loaded in ${seconds(performance.now() - loadStarted)}: ${size[0]!.mb} MB (tables and indexes)`);

    const before = await baseline(c, '-');
    console.log(`baseline (raw PostgreSQL: the two tables written once, indexes built once): ${seconds(before)}`);
    const migration = await timed(c, readFileSync(path.join(MIGRATIONS, TARGET, 'migration.sql'), 'utf8'));
    await c.query('CHECKPOINT');
    console.log(`migration ${TARGET}: ${seconds(migration)}`);
    const after = await baseline(c, '+');
    console.log(`baseline again: ${seconds(after)}`);
    console.log(`migration ÷ baseline: ${(migration / before).toFixed(2)} / ${(migration / after).toFixed(2)}`);

    // The rows decode to what was loaded (the offset is undone by the same arithmetic the repositories use).
    const { rows: check } = await c.query<{ lo: string; hi: string; op: string; cursor: string; sample: string }>(
      `SELECT (SELECT (min(user_id)::numeric + 9223372036854775808)::text FROM link_user) AS lo,
              (SELECT (max(user_id)::numeric + 9223372036854775808)::text FROM applied_member) AS hi,
              (SELECT (user_id::numeric + 9223372036854775808)::text FROM list_change WHERE op = 'walk') AS op,
              (SELECT (cursor::numeric + 9223372036854775808)::text FROM link_sync_state) AS cursor,
              (SELECT array_to_string(removal_sample, ',') FROM held_change) AS sample`,
    );
    const expected = {
      lo: '1000000000000000037',
      hi: (1000000000000000000n + BigInt(rows) * 37n).toString(),
      op: '0',
      cursor: '1000000000000000037',
    };
    const got = check[0]!;
    if (got.lo !== expected.lo || got.hi !== expected.hi || got.op !== expected.op || got.cursor !== expected.cursor)
      throw new Error(`migrated rows do not decode: ${JSON.stringify(got)}`);
    console.log(
      `checked: lowest ${got.lo}, highest ${got.hi}, link op ${got.op}, cursor ${got.cursor}; load average ${load()}`,
    );
  } finally {
    await c.end();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

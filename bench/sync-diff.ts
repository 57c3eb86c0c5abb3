// Child process of `pnpm bench sync diff`: N desired ids against N applied records with 1% changed,
// walked by the worker's own diff (bounded ranges, differences computed in PostgreSQL). Prints one JSON
// line; its peak RSS is this process's alone.
import { MAX_USER_ID, toStored } from '@rolelink/db/client';
import { desiredInRange, diffRange, nextRangeEnd } from '@rolelink/db/sync';
import { scratchDb } from './sync-support';

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 30_000_000);
  const db = await scratchDb('diff');
  try {
    const loadStarted = performance.now();
    const base = 100000000000000000n;
    await db.pool.query(`INSERT INTO guild (id, plan, updated_at) VALUES (1, 'premium', now())`);
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO role_link (guild_id, role_id, token_hash, token_ciphertext, plugin_url, updated_at)
       VALUES (1, 2, '\\x01', '\\x01', 'https://plugin.example.com', now()) RETURNING id::text`,
    );
    const link = rows[0]!.id;
    // Bulk generation for the benchmark only: unlogged tables, keys built after the load.
    for (const sql of [
      'ALTER TABLE link_user SET UNLOGGED',
      'ALTER TABLE applied_member SET UNLOGGED',
      'ALTER TABLE link_user DROP CONSTRAINT link_user_pkey',
      'ALTER TABLE applied_member DROP CONSTRAINT applied_member_pkey',
      `INSERT INTO link_user (link_id, user_id) SELECT ${link}, ${toStored(`${base} + g`)} FROM generate_series(1, ${n}) g`,
      // 0.5% of the list never applied, and 0.5% applied users no longer on the list: 1% changed.
      `INSERT INTO applied_member (link_id, user_id, outcome, updated_at)
         SELECT ${link}, ${toStored(`${base} + g`)}, 'applied', now() FROM generate_series(1, ${n}) g WHERE g % 200 <> 0
         UNION ALL
         SELECT ${link}, ${toStored(`${base} + ${n} + g`)}, 'applied', now() FROM generate_series(1, ${Math.floor(n / 200)}) g`,
      `SET maintenance_work_mem = '512MB'`,
      'ALTER TABLE link_user ADD CONSTRAINT link_user_pkey PRIMARY KEY (link_id, user_id)',
      'ALTER TABLE applied_member ADD CONSTRAINT applied_member_pkey PRIMARY KEY (link_id, user_id)',
      'VACUUM ANALYZE link_user',
      'VACUUM ANALYZE applied_member',
    ]) {
      await db.pool.query(sql);
    }
    const loadMs = performance.now() - loadStarted;

    const started = performance.now();
    let cursor = 0n;
    let ranges = 0;
    let diffs = 0;
    let desired = 0;
    for (;;) {
      const to = await nextRangeEnd(db.pool, link, cursor, 10_000);
      const rowsInRange = await diffRange(db.pool, link, cursor, to, null);
      desired += await desiredInRange(db.pool, link, cursor, to, null);
      diffs += rowsInRange.length;
      ranges++;
      cursor = to;
      if (to === MAX_USER_ID) break;
    }
    const diffMs = performance.now() - started;
    if (desired !== n) throw new Error(`desired count ${desired} != ${n}`);
    const changed = Math.floor(n / 200) * 2;
    console.log(
      JSON.stringify({ n, changed, loadMs, diffMs, diffs, ranges, maxRssMb: process.resourceUsage().maxRSS / 1024 }),
    );
  } finally {
    await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

-- User ids up to 2^64 - 1 (issue 24): every user-id column now holds `id - 2^63` in its signed bigint
-- (packages/db/src/user-id.ts is the only code that converts, and docs/architecture.md says why). Rows
-- written before this migration hold the id itself, always in [0, 2^63 - 1], so each becomes
-- `id - 9223372036854775807 - 1` (two steps: 2^63 is not a bigint literal), which stays in range. The
-- journal's link ops (user id 0) become -2^63, which decodes to 0 again.
--
-- ALTER COLUMN ... TYPE bigint USING rewrites each table once and rebuilds its indexes in bulk, where an UPDATE
-- of the key would write every row twice, leave 30M dead tuples and update each index entry by entry.
-- Timed at 30M rows by `pnpm bench migration` (docs/benchmarks.md). The tables are locked (ACCESS
-- EXCLUSIVE) while they are rewritten: run it with the API and the worker stopped (docs/operations.md).

ALTER TABLE "link_user" ALTER COLUMN "user_id" TYPE BIGINT USING ("user_id" - 9223372036854775807 - 1);
ALTER TABLE "applied_member" ALTER COLUMN "user_id" TYPE BIGINT USING ("user_id" - 9223372036854775807 - 1);
ALTER TABLE "list_change" ALTER COLUMN "user_id" TYPE BIGINT USING ("user_id" - 9223372036854775807 - 1);
ALTER TABLE "upload_staged" ALTER COLUMN "user_id" TYPE BIGINT USING ("user_id" - 9223372036854775807 - 1);
ALTER TABLE "member_change" ALTER COLUMN "user_id" TYPE BIGINT USING ("user_id" - 9223372036854775807 - 1);

-- Positions of a walk (the last user id finished, the synced boundary): compared with stored ids.
UPDATE "link_sync_state"
   SET "cursor" = "cursor" - 9223372036854775807 - 1,
       "applied_cutoff" = "applied_cutoff" - 9223372036854775807 - 1
 WHERE "cursor" IS NOT NULL OR "applied_cutoff" IS NOT NULL;

-- The few ids a held change names, in their order.
UPDATE "held_change"
   SET "removal_sample" = ARRAY(SELECT x - 9223372036854775807 - 1 FROM unnest("removal_sample") WITH ORDINALITY AS s(x, o) ORDER BY o)
 WHERE cardinality("removal_sample") > 0;

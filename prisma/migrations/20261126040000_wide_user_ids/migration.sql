-- Guild owners and dashboard admins are platform users, whose ids go up to 2^64 - 1 like every user id
-- (issue 24, docs/api.md "User IDs"), but a signed bigint stops at 2^63 - 1: an owner or an acting admin
-- above it made the plan upsert or the audit insert fail. numeric(20,0) holds every such id exactly. These
-- columns are never ordered or ranged over, so they hold the plain number, not the list tables' `id - 2^63`
-- (packages/db/src/user-id.ts), and existing values (all in [0, 2^63 - 1]) convert as they are.
--
-- Why this is safe and cheap: bigint -> numeric rewrites each table (ACCESS EXCLUSIVE while it runs), but
-- both are small. guild has one row per guild the service knows, admin_audit one row per admin action,
-- kept AUDIT_RETENTION_DAYS (365). Measured on a loaded 2-core machine: 100,000 guilds in 75 ms, 1,000,000
-- audit rows (228 MB with indexes) in about 2 s. No list table (link_user and the rest, 30M rows) is touched.
-- Expand-compatible (docs/operations.md): code of the previous release writes these ids as strings and reads
-- them as `::text`, which numeric accepts and prints the same, so old and new pods can run side by side.
-- (No semicolons in comments here: the migration engine splits the script on every one.)

-- AlterTable
ALTER TABLE "guild" ALTER COLUMN "owner_id" SET DATA TYPE DECIMAL(20,0);

-- AlterTable
ALTER TABLE "admin_audit" ALTER COLUMN "actor_id" SET DATA TYPE DECIMAL(20,0);

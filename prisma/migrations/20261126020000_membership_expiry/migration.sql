-- Memberships that expire on their own (issue 22, part 2). link_user holds up to 30M rows per link, so the
-- column is nullable without a default: PostgreSQL adds it to the catalog only, no table rewrite, no row
-- touched. NULL is "never expires" (every row written before this migration and every add without expiry).
--
-- Both indexes are partial (WHERE expires_at IS NOT NULL): only expiring rows are indexed, so they are small
-- and a plain add or PUT writes no entry in them. They are built in this migration's transaction (Prisma
-- runs a migration in one, CREATE INDEX CONCURRENTLY cannot run there): the build reads link_user once under
-- a SHARE lock, which blocks list writes (not reads) for that read, on a 30M-row table, deploy it with the
-- API drained (docs/operations.md). With no expiring row yet, both indexes are empty.
--   - (expires_at): the expiry sweeper's "what is due now", a range scan in expiry order, across links,
--   - (link_id): one link's expiring rows (GET /users?include=expiry, and a replace clearing expiries),
--     without reading the link's whole list.
ALTER TABLE "link_user" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
CREATE INDEX "link_user_expires_at_idx" ON "link_user" ("expires_at") WHERE "expires_at" IS NOT NULL;
CREATE INDEX "link_user_expiring_link_idx" ON "link_user" ("link_id") WHERE "expires_at" IS NOT NULL;

-- A chunked upload's per-user expiry, staged with its ID and applied by the commit (nullable, no default).
ALTER TABLE "upload_staged" ADD COLUMN "expires_at" TIMESTAMPTZ(3);

-- Lists ready to shard (issue 36, part 5): staged IDs carry their link, so link_id can be the distribution
-- column (Citus) or the partition key of every list table, staging included, and each statement on them
-- filters by link (packages/db/src/list-statements-by-link.test.ts). Rows of a session that is gone have
-- no link to take and are deleted (the upload GC would have deleted them).
ALTER TABLE "upload_staged" ADD COLUMN "link_id" BIGINT;
UPDATE "upload_staged" s SET "link_id" = u."link_id" FROM "upload_session" u WHERE u."id" = s."upload_id";
DELETE FROM "upload_staged" WHERE "link_id" IS NULL;
ALTER TABLE "upload_staged" ALTER COLUMN "link_id" SET NOT NULL;
DROP INDEX "upload_staged_upload_id_idx";
CREATE INDEX "upload_staged_link_id_upload_id_idx" ON "upload_staged"("link_id", "upload_id");

-- Change journal (issue 10): list writes append what changed, the worker consumes from its last applied
-- sequence, so a sync pass costs what changed, not what is listed.

-- AlterTable
ALTER TABLE "link_sync_state" ADD COLUMN     "applied_cutoff" BIGINT,
ADD COLUMN     "applied_limit" INTEGER,
ADD COLUMN     "journal_seq" BIGINT;

-- CreateTable
CREATE TABLE "list_change" (
    "link_id" BIGINT NOT NULL,
    "seq" BIGINT NOT NULL,
    "user_id" BIGINT NOT NULL,
    "op" VARCHAR(8) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "list_change_pkey" PRIMARY KEY ("link_id","seq","user_id")
);

-- Users in back-off, found without scanning a link's whole applied record (the journal consumer picks up
-- due retries with every batch). Partial: almost every row has next_retry_at NULL. Not expressible in
-- prisma/schema.prisma, and a later `pnpm db:diff` must not drop it.
CREATE INDEX "applied_member_retry_idx" ON "applied_member" ("link_id", "next_retry_at") WHERE "next_retry_at" IS NOT NULL;

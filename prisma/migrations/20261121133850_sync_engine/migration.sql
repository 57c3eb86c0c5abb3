-- Sync engine (bot worker): per-user retry state on applied_member, and the per-link pass state.

-- AlterTable
ALTER TABLE "applied_member" ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "next_retry_at" TIMESTAMP(3),
ADD COLUMN "last_error" VARCHAR(20);

-- CreateTable
CREATE TABLE "link_sync_state" (
    "link_id" BIGINT NOT NULL,
    "pass_seq" BIGINT NOT NULL DEFAULT 0,
    "cursor" BIGINT,
    "pass_started_at" TIMESTAMP(3),
    "desired_seen" INTEGER NOT NULL DEFAULT 0,
    "applied_seen" INTEGER NOT NULL DEFAULT 0,
    "changes" INTEGER NOT NULL DEFAULT 0,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "next_retry_at" TIMESTAMP(3),
    "base_applied" INTEGER NOT NULL DEFAULT 0,
    "backoff_until" TIMESTAMP(3),
    "backoff_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "link_sync_state_pkey" PRIMARY KEY ("link_id")
);

-- Drift repair (issue 22, part 4): per guild with active links, where the bot worker stands in the
-- platform's audit log (member role updates) and when it reads it next (docs/sync-engine.md, "Drift repair").

-- CreateTable
CREATE TABLE "drift_poll" (
    "guild_id" BIGINT NOT NULL,
    "last_entry_id" BIGINT,
    "next_poll_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "polled_at" TIMESTAMP(3),
    "status" VARCHAR(20) NOT NULL DEFAULT 'ok',
    "repaired" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "drift_poll_pkey" PRIMARY KEY ("guild_id")
);

-- CreateIndex
CREATE INDEX "drift_poll_next_poll_at_idx" ON "drift_poll"("next_poll_at");

-- Notifications (issue 20, part 3): what needs the owner, recorded in the event's transaction (an outbox)
-- and delivered on the platform by the bot worker, and per-guild settings of which events message whom.

-- CreateTable
CREATE TABLE "notification" (
    "id" BIGSERIAL NOT NULL,
    "guild_id" BIGINT NOT NULL,
    "role_id" BIGINT,
    "kind" VARCHAR(30) NOT NULL,
    "dedupe_key" VARCHAR(100),
    "detail" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivery" VARCHAR(10) NOT NULL DEFAULT 'pending',
    "delivered_to" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "delivered_at" TIMESTAMP(3),
    "read_at" TIMESTAMP(3),

    CONSTRAINT "notification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "guild_notify_settings" (
    "guild_id" BIGINT NOT NULL,
    "events" TEXT[] NOT NULL,
    "dm_owner" BOOLEAN NOT NULL DEFAULT true,
    "channel_id" BIGINT,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "guild_notify_settings_pkey" PRIMARY KEY ("guild_id")
);

-- CreateIndex
CREATE INDEX "notification_guild_id_id_idx" ON "notification"("guild_id", "id" DESC);

-- CreateIndex
CREATE INDEX "notification_dedupe_key_id_idx" ON "notification"("dedupe_key", "id" DESC);

-- CreateIndex
CREATE INDEX "notification_guild_id_kind_delivered_at_idx" ON "notification"("guild_id", "kind", "delivered_at");

-- The delivery sweep reads only what is still pending.
CREATE INDEX "notification_pending_idx" ON "notification"("guild_id") WHERE "delivery" = 'pending';

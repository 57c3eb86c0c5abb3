-- Issue 34, the platform's refusals as state (docs/sync-engine.md "When the platform refuses"): why a
-- link's role cannot be changed (link_sync_state.blocked_*), the bot application's missing Server Members
-- intent (bot_application), and guilds the bot is out of (guild_outage). Small tables and two nullable
-- columns without defaults: nothing is rewritten. applied_member.outcome gains the value 'unknown_user'
-- (10013, a deleted account: never retried), a varchar: no DDL.

-- AlterTable
ALTER TABLE "link_sync_state" ADD COLUMN     "blocked_reason" VARCHAR(30),
ADD COLUMN     "blocked_since" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "bot_application" (
    "app_key" VARCHAR(64) NOT NULL,
    "members_blocked_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bot_application_pkey" PRIMARY KEY ("app_key")
);

-- CreateTable
CREATE TABLE "guild_outage" (
    "guild_id" BIGINT NOT NULL,
    "since" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "code" INTEGER NOT NULL,
    "probes" INTEGER NOT NULL DEFAULT 0,
    "next_probe_at" TIMESTAMP(3),
    "notified" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "guild_outage_pkey" PRIMARY KEY ("guild_id")
);

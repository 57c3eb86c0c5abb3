-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'premium');

-- CreateEnum
CREATE TYPE "MemberMode" AS ENUM ('handover', 'keep');

-- CreateTable
CREATE TABLE "guild" (
    "id" BIGINT NOT NULL,
    "owner_id" BIGINT,
    "plan" "Plan" NOT NULL DEFAULT 'free',
    "paid_slots" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "guild_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "role_link" (
    "id" BIGSERIAL NOT NULL,
    "guild_id" BIGINT NOT NULL,
    "role_id" BIGINT NOT NULL,
    "token_hash" BYTEA NOT NULL,
    "token_ciphertext" BYTEA NOT NULL,
    "plugin_url" VARCHAR(500) NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "trusted" BOOLEAN NOT NULL DEFAULT false,
    "member_mode" "MemberMode" NOT NULL DEFAULT 'handover',
    "first_list_at" TIMESTAMP(3),
    "user_count" INTEGER NOT NULL DEFAULT 0,
    "sync_wanted_seq" BIGINT NOT NULL DEFAULT 0,
    "sync_done_seq" BIGINT NOT NULL DEFAULT 0,
    "applied_count" INTEGER NOT NULL DEFAULT 0,
    "pending_count" INTEGER NOT NULL DEFAULT 0,
    "sync_rate_per_sec" DOUBLE PRECISION,
    "last_sync_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "role_link_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "link_user" (
    "link_id" BIGINT NOT NULL,
    "user_id" BIGINT NOT NULL,

    CONSTRAINT "link_user_pkey" PRIMARY KEY ("link_id","user_id")
);

-- CreateTable
CREATE TABLE "upload_session" (
    "id" UUID NOT NULL,
    "link_id" BIGINT NOT NULL,
    "chunks" INTEGER NOT NULL DEFAULT 0,
    "users" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "closed_at" TIMESTAMP(3),

    CONSTRAINT "upload_session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "upload_staged" (
    "upload_id" UUID NOT NULL,
    "user_id" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "held_change" (
    "change_id" UUID NOT NULL,
    "link_id" BIGINT NOT NULL,
    "previous" INTEGER NOT NULL,
    "next" INTEGER NOT NULL,
    "removals" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "confirmed_at" TIMESTAMP(3),
    "used_at" TIMESTAMP(3),

    CONSTRAINT "held_change_pkey" PRIMARY KEY ("change_id")
);

-- CreateTable
CREATE TABLE "applied_member" (
    "link_id" BIGINT NOT NULL,
    "user_id" BIGINT NOT NULL,
    "outcome" VARCHAR(20) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "applied_member_pkey" PRIMARY KEY ("link_id","user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "role_link_token_hash_key" ON "role_link"("token_hash");

-- CreateIndex
CREATE INDEX "role_link_guild_id_id_idx" ON "role_link"("guild_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "role_link_guild_id_role_id_key" ON "role_link"("guild_id", "role_id");

-- CreateIndex
CREATE INDEX "upload_session_link_id_idx" ON "upload_session"("link_id");

-- CreateIndex
CREATE INDEX "upload_session_expires_at_idx" ON "upload_session"("expires_at");

-- CreateIndex
CREATE INDEX "upload_staged_upload_id_idx" ON "upload_staged"("upload_id");

-- CreateIndex
CREATE INDEX "held_change_link_id_created_at_idx" ON "held_change"("link_id", "created_at");

-- AddForeignKey
ALTER TABLE "role_link" ADD CONSTRAINT "role_link_guild_id_fkey" FOREIGN KEY ("guild_id") REFERENCES "guild"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "upload_session" ADD CONSTRAINT "upload_session_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "role_link"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "held_change" ADD CONSTRAINT "held_change_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "role_link"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Admin audit log (issue 20, part 4): who did what, when, per guild.

-- CreateTable
CREATE TABLE "admin_audit" (
    "id" BIGSERIAL NOT NULL,
    "guild_id" BIGINT NOT NULL,
    "role_id" BIGINT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" BIGINT,
    "actor_name" VARCHAR(100) NOT NULL,
    "via" VARCHAR(10) NOT NULL,
    "action" VARCHAR(30) NOT NULL,
    "detail" JSONB,

    CONSTRAINT "admin_audit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "admin_audit_guild_id_id_idx" ON "admin_audit"("guild_id", "id" DESC);

-- CreateIndex
CREATE INDEX "admin_audit_at_idx" ON "admin_audit"("at");

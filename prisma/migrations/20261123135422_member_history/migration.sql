-- Per-member change history (issue 10): each role change the bot sent, its outcome and its cause, newest 20 kept per member.

-- CreateTable
CREATE TABLE "member_change" (
    "id" BIGSERIAL NOT NULL,
    "link_id" BIGINT NOT NULL,
    "user_id" BIGINT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "action" VARCHAR(8) NOT NULL,
    "outcome" VARCHAR(20) NOT NULL,
    "cause" VARCHAR(20) NOT NULL,

    CONSTRAINT "member_change_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "member_change_link_id_user_id_id_idx" ON "member_change"("link_id", "user_id", "id" DESC);

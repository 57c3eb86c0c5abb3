-- Signed events to plugins (issue 22, part 1, docs/api.md "Events to plugins"). New tables only: no
-- existing table changes, so links whose plugin did not opt in see no new row and no new behaviour.
-- No foreign keys to role_link: a link's `link.deleted` event (and the rest of its queue) is delivered
-- after its row is gone, the subscription keeps what delivery needs (URL, guild/role, token ciphertext).

-- CreateTable: one row per link whose plugin opted in (its /register or /health answer listed `events`).
CREATE TABLE "plugin_event_link" (
    "link_id" BIGINT NOT NULL,
    "guild_id" BIGINT NOT NULL,
    "role_id" BIGINT NOT NULL,
    "plugin_url" VARCHAR(500) NOT NULL,
    "token_ciphertext" BYTEA NOT NULL,
    "kinds" TEXT[] NOT NULL,
    "next_seq" BIGINT NOT NULL DEFAULT 1,
    "lease_until" TIMESTAMP(3),
    "link_deleted_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plugin_event_link_pkey" PRIMARY KEY ("link_id")
);

-- CreateTable: the events, in per-link order (seq), with their delivery state.
CREATE TABLE "plugin_event" (
    "id" BIGSERIAL NOT NULL,
    "link_id" BIGINT NOT NULL,
    "seq" BIGINT NOT NULL,
    "kind" VARCHAR(40) NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" VARCHAR(12) NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retry_from" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "plugin_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable: every delivery attempt (the delivery log of the dashboard and `rolelink link events`).
CREATE TABLE "plugin_event_attempt" (
    "id" BIGSERIAL NOT NULL,
    "event_id" BIGINT NOT NULL,
    "attempted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "http_status" INTEGER,
    "error" VARCHAR(300),
    "latency_ms" INTEGER,

    CONSTRAINT "plugin_event_attempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "plugin_event_link_id_seq_key" ON "plugin_event"("link_id", "seq");

-- The delivery sweep reads only what is still pending, the most overdue first.
CREATE INDEX "plugin_event_pending_idx" ON "plugin_event"("next_attempt_at") WHERE "state" = 'pending';

-- CreateIndex
CREATE INDEX "plugin_event_attempt_event_id_idx" ON "plugin_event_attempt"("event_id");

-- AddForeignKey: attempts go with their event.
ALTER TABLE "plugin_event_attempt" ADD CONSTRAINT "plugin_event_attempt_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "plugin_event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

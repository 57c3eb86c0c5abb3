-- Drift polling that scales (issue 36, part 3): the poll reads guilds by priority, not only by how overdue
-- they are (docs/sync-engine.md "Which guild next"). A guild where the bot changed a linked role, or where
-- the poll saw a hand edit, within the last hour goes ahead of a quiet one, and created_at dates a guild that
-- has not been read yet, for the coverage gauge (rolelink_drift_poll_age_seconds).
ALTER TABLE "drift_poll" ADD COLUMN "link_changed_at" TIMESTAMP(3),
ADD COLUMN "hand_edit_at" TIMESTAMP(3),
ADD COLUMN "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

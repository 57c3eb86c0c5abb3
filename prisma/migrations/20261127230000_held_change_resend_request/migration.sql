-- When the server owner last asked the plugin to resend its list for this applied removal (issue 34,
-- list.resend_requested): a second request within five minutes queues no second event.
ALTER TABLE "held_change" ADD COLUMN "resend_requested_at" TIMESTAMP(3);

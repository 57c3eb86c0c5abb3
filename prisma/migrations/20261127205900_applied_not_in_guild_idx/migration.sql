-- Listed users who are not in the server (issue 34): the link page counts them apart from the progress.
-- Partial: only the few rows with that outcome, so the count never walks a link's applied record.
CREATE INDEX "applied_member_not_in_guild_idx" ON "applied_member" ("link_id", "user_id") WHERE "outcome" = 'not_in_guild';

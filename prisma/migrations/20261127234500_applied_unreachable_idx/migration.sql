-- Listed users no role call can reach (issue 34): not in the server (10007) and deleted accounts (10013),
-- both counted apart from the progress on every read of a link. One partial index over just those rows
-- replaces applied_member_not_in_guild_idx, which held the first kind only.
CREATE INDEX "applied_member_unreachable_idx" ON "applied_member" ("link_id", "user_id") WHERE "outcome" IN ('not_in_guild', 'unknown_user');
DROP INDEX "applied_member_not_in_guild_idx";

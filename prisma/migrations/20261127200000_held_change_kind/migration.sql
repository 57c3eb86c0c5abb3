-- What a held change holds (issue 34): shrink, a large removal by a plugin held at the API (spec 4.1 rule 6),
-- or admin_source, removals the bot held because the role of the link is the only Administrator or Manage
-- Server of some member. The owner confirms both with Apply removals, and only a shrink hold is answered by the
-- X-RoleLink-Confirm header of a plugin. Existing rows are shrink holds.
ALTER TABLE "held_change" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'shrink';

-- Provenance of each applied record (issue 20): `granted` is true only where this link's add call gave
-- the user the role. `link delete --strip-roles` strips only those, never a member who held the role
-- before the link (hand-over, keep, an earlier deleted link) or was given it by hand.

-- AlterTable
ALTER TABLE "applied_member" ADD COLUMN     "granted" BOOLEAN NOT NULL DEFAULT false;

-- Existing rows: the only evidence of a grant is the member's history. A holder whose newest recorded
-- change on this link is the bot's accepted add was granted by the link, everyone else (no history: found
-- holding the role at creation, or a later change) is left as not granted, so a strip can only take less.
UPDATE "applied_member" a SET "granted" = true
 WHERE a.outcome = 'applied'
   AND (SELECT m.action = 'add' AND m.outcome = 'applied'
          FROM "member_change" m
         WHERE m.link_id = a.link_id AND m.user_id = a.user_id
         ORDER BY m.id DESC LIMIT 1);

-- A strip pages and counts exactly these rows (the rest of a 30M-user record is never read).
CREATE INDEX "applied_member_granted_idx" ON "applied_member" ("link_id", "user_id") WHERE outcome = 'applied' AND granted;

-- Who a held removal would take the role from (issue 20, part 2): the first few members, by user id, that
-- the held list left out, recorded with the hold. The list itself is still not stored (spec 3.3), and the
-- Apply removals dialog names these so that a confirmation is never given blind.

-- AlterTable
ALTER TABLE "held_change" ADD COLUMN     "removal_sample" BIGINT[] DEFAULT ARRAY[]::BIGINT[];

-- Every change a walk had to make when it started, additions and removals (issue 20, part 2): the
-- interim pending count is this less the calls made so far, so progress and ETA count removals too.

-- AlterTable
ALTER TABLE "link_sync_state" ADD COLUMN     "pass_pending" INTEGER NOT NULL DEFAULT 0;

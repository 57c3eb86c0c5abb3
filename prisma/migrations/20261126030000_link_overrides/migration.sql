-- Admin overrides per link (issue 22, part 3): members who always keep the role ("always") and members
-- who never get it ("never"), applied by the sync engine above the plugin's list (docs/sync-engine.md,
-- "Admin overrides"). A new, small table (at most 1,000 rows per list per link): nothing is added to the
-- large tables. One row per (link, user): a user is in at most one of the two lists.
-- user_id is stored as id - 2^63 like every user-id column (packages/db/src/user-id.ts).

-- CreateTable
CREATE TABLE "link_override" (
    "link_id" BIGINT NOT NULL,
    "user_id" BIGINT NOT NULL,
    "kind" VARCHAR(10) NOT NULL,
    "added_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "link_override_pkey" PRIMARY KEY ("link_id","user_id"),
    CONSTRAINT "link_override_kind_check" CHECK ("kind" IN ('always', 'never'))
);

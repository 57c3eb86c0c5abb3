-- link delete --strip-roles (issue 10): the purge record keeps the guild and role and waits for the strip.

-- AlterTable
ALTER TABLE "link_purge" ADD COLUMN     "guild_id" BIGINT,
ADD COLUMN     "role_id" BIGINT,
ADD COLUMN     "strip_roles" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "stripped_at" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "role_link" ADD COLUMN     "list_version" BIGINT NOT NULL DEFAULT 0;

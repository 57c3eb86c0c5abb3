-- CreateTable
CREATE TABLE "link_purge" (
    "link_id" BIGINT NOT NULL,
    "deleted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "link_purge_pkey" PRIMARY KEY ("link_id")
);

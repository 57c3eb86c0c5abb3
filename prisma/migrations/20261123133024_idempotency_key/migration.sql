-- CreateTable
CREATE TABLE "idempotency_key" (
    "link_id" BIGINT NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "fingerprint" BYTEA NOT NULL,
    "status" INTEGER,
    "body" JSONB,
    "etag" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_key_pkey" PRIMARY KEY ("link_id","key")
);

-- CreateIndex
CREATE INDEX "idempotency_key_created_at_idx" ON "idempotency_key"("created_at");

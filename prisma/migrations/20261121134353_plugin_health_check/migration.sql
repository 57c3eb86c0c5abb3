-- Plugin health polling (services/plugin-broker): latest GET /health results per plugin URL, bounded history.

-- CreateEnum
CREATE TYPE "PluginHealthStatus" AS ENUM ('healthy', 'degraded', 'unhealthy', 'unreachable');

-- CreateTable
CREATE TABLE "plugin_health_check" (
    "id" BIGSERIAL NOT NULL,
    "plugin_url" VARCHAR(500) NOT NULL,
    "status" "PluginHealthStatus" NOT NULL,
    "latency_ms" INTEGER,
    "detail" JSONB,
    "checked_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plugin_health_check_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "plugin_health_check_plugin_url_id_idx" ON "plugin_health_check"("plugin_url", "id" DESC);

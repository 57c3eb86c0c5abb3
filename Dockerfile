# syntax=docker/dockerfile:1.7
# One multi-target image build for every deployable: api, plugin-broker, bot-worker, dashboard, migrate.
#   docker build --target api -t rolelink/api .
# Packages are source-only TypeScript (main: src/index.ts); services run with tsx's loader, as locally.

ARG NODE_VERSION=20.19
FROM node:${NODE_VERSION}-bookworm-slim AS base
ENV PNPM_HOME=/pnpm \
    PATH=/pnpm:$PATH \
    COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    CI=true
# pnpm at the version pinned in package.json's packageManager field.
RUN corepack enable pnpm
WORKDIR /app

# Dependencies only: this layer is rebuilt when the lockfile changes, not on every source edit.
FROM base AS fetch
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN corepack install
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm fetch --store-dir /pnpm/store

FROM fetch AS build
COPY . .
# --offline: everything comes from the store filled by `pnpm fetch`. The root postinstall generates the
# Prisma client (no engine download: scripts/prisma-generate.mjs); dependency install scripts stay off.
# The dashboard's front end is built here into services/dashboard/web/dist, which the dashboard serves.
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm install --frozen-lockfile --offline --store-dir /pnpm/store \
 && pnpm --filter @rolelink/dashboard-web build \
 && rm -rf .data .git test bench docs k8s

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
COPY --from=build --chown=root:root /app /app
# Non-root at run time; the code is owned by root and read-only to the process. tsx keeps its
# transform cache in /tmp (an emptyDir in Kubernetes, where the root filesystem is read-only).
USER node
STOPSIGNAL SIGTERM

FROM runtime AS api
ENV API_PORT=3000
EXPOSE 3000
CMD ["node", "--import", "tsx", "services/api/src/main.ts"]

FROM runtime AS plugin-broker
ENV BROKER_PORT=3002
EXPOSE 3002
CMD ["node", "--import", "tsx", "services/plugin-broker/src/main.ts"]

FROM runtime AS bot-worker
ENV WORKER_PORT=3003
EXPOSE 3003
CMD ["node", "--import", "tsx", "services/bot-worker/src/main.ts"]

FROM runtime AS dashboard
ENV DASHBOARD_PORT=3001
EXPOSE 3001
CMD ["node", "--import", "tsx", "services/dashboard/src/main.ts"]

# One-shot: applies pending migrations to DATABASE_URL (Prisma's schema engine as WebAssembly).
FROM runtime AS migrate
CMD ["node", "--experimental-wasm-modules", "--no-warnings", "--import", "tsx", "scripts/migrate.ts", "deploy"]

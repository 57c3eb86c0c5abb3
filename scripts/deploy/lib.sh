# Shared by scripts/deploy/*.sh: progress lines and the docker client to use.
# Debian's own client (docker.io, 20.10) builds with BuildKit by itself; a newer client elsewhere on
# the PATH would need the buildx plugin for that, which may be absent (docs/operations.md).
DOCKER=${DOCKER:-$(if [ -x /usr/bin/docker ]; then echo /usr/bin/docker; else command -v docker || echo docker; fi)}
export DOCKER_BUILDKIT=1
step_started=$(date +%s)
say() { printf '› %s\n' "$*"; }
fail() {
  printf '✗ %s\n' "$*" >&2
  exit 1
}
# `step "building the api image"` … `done_step`: one line when a long step starts and one with its time.
step() {
  step_name=$*
  step_started=$(date +%s)
  say "$step_name…"
}
done_step() { say "$step_name: done in $(($(date +%s) - step_started)) s"; }
have_image() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }
# host_url SPEC: where this host reaches a port Compose publishes as SPEC, the host side of a `ports:`
# entry: PORT, or HOST:PORT (0.0.0.0, every address, is reached on the loopback). `HOST:` alone asks
# Docker for an ephemeral port: the caller passes what `docker-compose port` reports instead.
host_url() {
  local addr=$1
  [[ $addr == *:* ]] || addr=127.0.0.1:$addr
  [[ $addr == 0.0.0.0:* ]] && addr=127.0.0.1:${addr#0.0.0.0:}
  [[ $addr == *: ]] && fail "host_url: $1 has no port (an ephemeral one: ask docker-compose port)"
  echo "http://$addr"
}

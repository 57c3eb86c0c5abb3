#!/usr/bin/env bash
# One command from a checkout to the whole service running in Docker, proven, and gone again:
#   pnpm deploy:local            (or: bash scripts/deploy-local.sh)
# 1. a Docker engine: the one that answers, else Debian's docker.io installed and dockerd started;
# 2. the base images (pulled, else built locally) and 3. every image target of the Dockerfile, plus
#    local-tools (the platform emulator and example plugin): scripts/deploy/build-images.sh;
# 4. `up` of docker-compose.yml + docker-compose.local.yml (project rolelink-local): migrate first, then
#    every service healthy, with the emulator as the platform;
# 5. the main job end to end: a premium plan and a link made with the rolelink CLI image, the example
#    plugin registers and pushes its list, and the list's members hold the role on the emulator;
# 6. `docker-compose down --volumes`, and the dockerd this run started is stopped (images stay cached).
# Options:  --keep  leave the stack (and dockerd) running after the proof;  --down  take a kept one down.
# Host ports: API_PORT (3000), DASHBOARD_PORT (3001), EMULATOR_PORT (3900), each moved to a free port if taken.
# ROLELINK_DEPLOY_PROJECT (default rolelink-local): the Compose project, so a second stack on this engine
# (scripts/deploy/rolling-restart.sh) never takes down, or is taken down by, another run's stack.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=deploy/lib.sh
. "$here/deploy/lib.sh"
cd "$root"

mode=run
case "${1:-}" in
--keep) mode=keep ;;
--down) mode=down ;;
"") ;;
*) fail "unknown option $1 (use --keep or --down)" ;;
esac

state=${ROLELINK_DEPLOY_STATE:-$root/.data/deploy-local}
mkdir -p "$state"
project=${ROLELINK_DEPLOY_PROJECT:-rolelink-local}
compose() { docker-compose -p "$project" -f docker-compose.yml -f docker-compose.local.yml "$@"; }
# The demo guild and role of scripts/stack/config.ts (DEMO) and the example plugin's demo list size.
guild=1100000000000000001
owner=90000000000000001
role=1100000000000000011
first_member=100000000000000000
list_size=20

# --- 1. the engine ------------------------------------------------------------------------------
engine_answers() { timeout 10 "$DOCKER" version --format '{{.Server.Version}}' >/dev/null 2>&1; }
ensure_engine() {
  if engine_answers; then
    say "Docker engine $("$DOCKER" version --format '{{.Server.Version}}') answers"
  else
    if [ ! -x /usr/sbin/dockerd ] || ! command -v docker-compose >/dev/null; then
      step "installing Docker (Debian's docker.io and docker-compose)"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io docker-compose >"$state/apt.log" 2>&1 ||
        { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io docker-compose >"$state/apt.log" 2>&1; } ||
        fail "could not install docker.io (see $state/apt.log)"
      DOCKER=/usr/bin/docker
      done_step
    fi
    step "starting dockerd (log: $state/dockerd.log)"
    nohup /usr/sbin/dockerd >"$state/dockerd.log" 2>&1 &
    echo $! >"$state/dockerd.pid"
    for _ in $(seq 1 60); do engine_answers && break; sleep 0.5; done
    engine_answers || fail "dockerd did not answer within 30 s; see $state/dockerd.log"
    done_step
  fi
  command -v docker-compose >/dev/null || fail "docker-compose is missing (apt-get install docker-compose)"
}
# Only the dockerd this script started (its pid file), by its pid.
stop_engine() {
  [ -f "$state/dockerd.pid" ] || return 0
  local pid
  pid=$(cat "$state/dockerd.pid")
  if kill -0 "$pid" 2>/dev/null; then
    say "stopping the dockerd this run started (pid $pid)"
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  rm -f "$state/dockerd.pid"
}

# --- .env and ports ---------------------------------------------------------------------------
# Compose reads .env (docker-compose.yml's env_file and its ${…} secrets). An existing one is used as it
# is; otherwise one with fresh development secrets is written, and removed again at `down`.
ensure_env() {
  if [ -f .env ]; then
    say "using the existing .env"
    return 0
  fi
  say "writing .env with fresh development secrets (removed again by the final down)"
  {
    echo "# Written by scripts/deploy-local.sh for a local run; development values only."
    echo "COMPOSE_PROJECT_NAME=$project"
    echo "ROLELINK_SECRET_KEY=$(openssl rand -hex 32)"
    echo "POSTGRES_PASSWORD=$(openssl rand -hex 16)"
    echo "DASHBOARD_SESSION_SECRET=$(openssl rand -hex 32)"
    echo "BROKER_INTERNAL_TOKEN=$(openssl rand -hex 32)"
    # Fresh, long secrets for the emulator too (docker-compose.local.yml hands them to it): the services
    # run with NODE_ENV=production, whose rule refuses the emulator's well-known defaults and short secrets.
    echo "PLATFORM_BOT_TOKEN=$(openssl rand -hex 24)"
    echo "PLATFORM_OAUTH_CLIENT_ID=1000000000000000010"
    echo "PLATFORM_OAUTH_CLIENT_SECRET=$(openssl rand -hex 24)"
  } >.env
  touch "$state/env-written"
}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
choose_port() { # choose_port VAR default: the variable's value, else the default if free, else any free port
  local name=$1 want=${!1:-$2}
  if [ -z "${!1:-}" ] && ! port_free "$want"; then want=$(free_port); fi
  export "$name=$want"
}

# --- 4. waiting -------------------------------------------------------------------------------
# Every container of the project that has a health check reports healthy, and migrate exited 0.
wait_healthy() {
  local deadline=$(($(date +%s) + ${DEPLOY_HEALTH_TIMEOUT:-300})) last=""
  while :; do
    local ids states pending="" bad=""
    ids=$(compose ps -q)
    states=$("$DOCKER" inspect --format '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} {{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' $ids)
    while read -r svc status code health; do
      if [ "$svc" = migrate ]; then
        [ "$status" = exited ] && [ "$code" != 0 ] && bad="migrate exited $code"
        [ "$status" = exited ] || pending="$pending migrate($status)"
      elif [ "$health" != healthy ]; then
        [ "$status" = exited ] || [ "$status" = dead ] && bad="$svc $status (exit $code)"
        pending="$pending $svc($health)"
      fi
    done <<<"$states"
    [ -z "$bad" ] || { compose logs --tail 30 >&2 || true; fail "$bad"; }
    [ -z "$pending" ] && return 0
    [ "$pending" != "$last" ] && say "  waiting for:$pending"
    last=$pending
    [ "$(date +%s)" -lt "$deadline" ] || { compose logs --tail 30 >&2 || true; fail "not healthy in time:$pending"; }
    sleep 2
  done
}

# The demo role's holders on the emulator, as one number (or empty when it does not answer).
holders() {
  curl -fsS "http://127.0.0.1:$EMULATOR_PORT/_emulator/guilds/$guild/roles/$role/holders" 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).holders.length)}catch{console.log("")}})'
}

prove_main_job() {
  step "the main job: a premium plan and a link (rolelink CLI image), the plugin registers and pushes $list_size members"
  compose run --rm -T cli guild set-plan "$guild" --plan premium --owner "$owner"
  compose run --rm -T cli link create "$guild" "$role" --plugin-url https://plugin:3443
  local deadline=$(($(date +%s) + ${DEPLOY_SYNC_TIMEOUT:-120})) n=""
  while :; do
    n=$(holders)
    [ "$n" = "$list_size" ] && break
    [ "$(date +%s)" -lt "$deadline" ] || fail "the role has ${n:-no answer} of $list_size holders on the emulator after ${DEPLOY_SYNC_TIMEOUT:-120} s"
    sleep 1
  done
  compose run --rm -T cli link show "$guild" "$role"
  say "main job proven: $n of $list_size listed members hold role $role on the emulator (first $first_member)"
  done_step
}

down() {
  step "docker-compose down --volumes (containers, network and volumes of $project)"
  compose down --volumes --remove-orphans --timeout 30 >/dev/null 2>&1 || compose down --volumes --remove-orphans --timeout 30
  if [ -f "$state/env-written" ]; then rm -f .env "$state/env-written"; fi
  local left
  left=$("$DOCKER" ps -aq --filter "label=com.docker.compose.project=$project"; "$DOCKER" volume ls -q --filter "label=com.docker.compose.project=$project"; "$DOCKER" network ls -q --filter "label=com.docker.compose.project=$project")
  [ -z "$left" ] || fail "left behind after down: $left"
  done_step
}

if [ "$mode" = down ]; then
  engine_answers || { say "no Docker engine answers: nothing to take down"; exit 0; }
  ensure_env
  down
  stop_engine
  exit 0
fi

started=$(date +%s)
ensure_engine
ensure_env
choose_port API_PORT 3000
choose_port DASHBOARD_PORT 3001
choose_port EMULATOR_PORT 3900
say "host ports: api $API_PORT, dashboard $DASHBOARD_PORT, emulator $EMULATOR_PORT"

# Base images, then every target (scripts/deploy/build-images.sh, the same script docs/compose.md's
# quickstart runs); local-tools too, for the emulator and the example plugin.
bash "$here/deploy/build-images.sh" --log-dir "$state" migrate api plugin-broker bot-worker dashboard cli local-tools
set -a
. "$state/base-images.env"
set +a

# From here on a failure still takes the stack down (unless --keep), so nothing is left behind.
if [ "$mode" = run ]; then trap 'status=$?; [ $status = 0 ] || { say "failed: taking the stack down"; down || true; stop_engine; }' EXIT; fi

step "starting the stack: postgres and redis, migrate, then the services (docker-compose up)"
compose up -d --no-build
wait_healthy
say "migrate exited 0; every container with a health check is healthy ($(compose ps -q | wc -l) containers)"
done_step

prove_main_job

if [ "$mode" = keep ]; then
  # API_PORT may be HOST:PORT, or HOST: for an ephemeral port (scripts/deploy/rolling-restart.sh's replicas).
  api_addr=$API_PORT
  [[ $api_addr == *: ]] && api_addr=$(compose port api 3000)
  say "kept running (project $project): api $(host_url "$api_addr"), dashboard $(host_url "$DASHBOARD_PORT"), emulator $(host_url "$EMULATOR_PORT")"
  say "take it down with: bash scripts/deploy-local.sh --down"
else
  down
  stop_engine
fi
say "deploy-local: done in $(($(date +%s) - started)) s"

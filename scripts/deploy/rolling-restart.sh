#!/usr/bin/env bash
# The rolling-restart figure, on the built images: failed requests of a steady POST load while the
# API replicas are restarted one at a time behind the load balancer (goal: 0), beside a baseline of the
# same load with no restart, in the same run.
#   bash scripts/deploy/rolling-restart.sh
# 1. scripts/deploy-local.sh --keep under its own Compose project (rolelink-roll) and ports: engine, base
#    images, every image, the stack, the demo link made with the CLI image and its list synced;
# 2. the load balancer's image (scripts/deploy/lb), then docker-compose.rolling.yml on top: a second API
#    replica and the balancer; waits until both replicas are healthy and up in the balancer;
# 3. the load (scripts/deploy/post-load.ts) with the link's token, as the example plugin holds it:
#    POST /users/:userId at ROLL_RATE per second through the balancer; a warm-up, then the baseline
#    (ROLL_BASELINE_S seconds, no restart), then the rolling phase: each API container in turn gets
#    `docker stop` (SIGTERM, its own grace period: stop_grace_period 30 s) and `docker start`, and the
#    next one waits until it is healthy again and back in the balancer;
# 4. the figures, then scripts/deploy-local.sh --down: containers, network and volumes of the project go,
#    and the dockerd this run started is stopped. Images stay cached.
# Settings: ROLL_RATE (50 requests/s: half the premium plan's 6,000 per minute, so the per-token rate limit
# refuses none), ROLL_BASELINE_S (60), ROLL_KEEP=1 (leave the stack running; take it down with
# ROLELINK_DEPLOY_PROJECT=rolelink-roll ROLELINK_DEPLOY_STATE=.data/rolling-restart bash scripts/deploy-local.sh --down).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$root"

rate=${ROLL_RATE:-50}
baseline_s=${ROLL_BASELINE_S:-60}
export ROLELINK_DEPLOY_PROJECT=${ROLELINK_DEPLOY_PROJECT:-rolelink-roll}
export ROLELINK_DEPLOY_STATE=${ROLELINK_DEPLOY_STATE:-$root/.data/rolling-restart}
project=$ROLELINK_DEPLOY_PROJECT
state=$ROLELINK_DEPLOY_STATE
mkdir -p "$state"
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# Free ports of our own, so this stack never sits on the ports another run's stack expects.
export DASHBOARD_PORT=${DASHBOARD_PORT:-$(free_port)} EMULATOR_PORT=${EMULATOR_PORT:-$(free_port)} LB_PORT=${LB_PORT:-$(free_port)}
# docker-compose.rolling.yml says why: each API replica on an ephemeral loopback port, clients on LB_PORT.
export API_PORT=127.0.0.1:
# Enough generated members in the demo guild that every POST of the run adds a real member (see below).
members=$((20 + (baseline_s + 120) * rate))
export DEMO_MEMBERS=${DEMO_MEMBERS:-$members}
guild=1100000000000000001
role=1100000000000000011
first_member=100000000000000000
compose() { docker-compose -p "$project" -f docker-compose.yml -f docker-compose.local.yml -f docker-compose.rolling.yml "$@"; }
ts() { date -u +%H:%M:%S; }
ip_of() { "$DOCKER" inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }

# From the first step on, any exit takes the stack down (deploy-local's --down: down --volumes, the
# leftover check, the dockerd this run started), unless ROLL_KEEP=1.
teardown() {
  local status=$?
  [ -z "${load_pid:-}" ] || kill "$load_pid" 2>/dev/null || true
  if [ "${ROLL_KEEP:-}" = 1 ]; then
    say "kept running (project $project): load balancer http://127.0.0.1:$LB_PORT"
  else
    # The balancer's and the API containers' logs stay in $state for a look afterwards.
    [ -n "${lb:-}" ] && "$DOCKER" logs -t "$lb" >"$state/lb.log" 2>&1 || true
    for c in ${apis:-}; do "$DOCKER" logs -t "$c" >"$state/$c.log" 2>&1 || true; done
    bash scripts/deploy-local.sh --down || status=1
  fi
  exit $status
}
trap teardown EXIT

step "the stack from the built images (scripts/deploy-local.sh --keep, project $project)"
bash scripts/deploy-local.sh --keep
done_step

step "the load balancer's image (Debian's HAProxy) and docker-compose.rolling.yml: a second API replica behind it"
# Debian bookworm: the official debian image where a registry serves it, else the root filesystem
# base-images.sh imported from debootstrap (no registry here).
lb_base=debian:bookworm-slim
if ! have_image "$lb_base" && have_image rolelink-local/bookworm-minbase:latest; then lb_base=rolelink-local/bookworm-minbase:latest; fi
export LB_BASE_IMAGE=$lb_base
"$DOCKER" build -q --build-arg "BASE_IMAGE=$lb_base" -t rolelink/lb:local scripts/deploy/lb >"$state/build-lb.log" 2>&1 ||
  { tail -30 "$state/build-lb.log" >&2; fail "docker build of the load balancer failed (log: $state/build-lb.log)"; }
set -a
. "$state/base-images.env"
set +a
compose up -d --no-build
done_step

apis=$("$DOCKER" ps -q --filter "label=com.docker.compose.project=$project" --filter label=com.docker.compose.service=api | xargs "$DOCKER" inspect --format '{{.Name}}' | sed 's|^/||' | sort)
[ "$(echo "$apis" | wc -l)" = 2 ] || fail "expected 2 API containers, found: $apis"
lb=$("$DOCKER" ps -q --filter "label=com.docker.compose.project=$project" --filter label=com.docker.compose.service=lb)
lb_ip=$(ip_of "$lb")
# How many API replicas the balancer has up: HAProxy's CSV statistics (column 18 = status).
lb_up() { curl -fsS -m 2 "http://$lb_ip:8404/stats;csv" 2>/dev/null | awk -F, '$1 == "api" && $2 ~ /^api[0-9]+$/ && $18 ~ /^UP/ { n++ } END { print n + 0 }'; }
wait_ready() { # wait_ready <container>: Docker's health check says healthy and the balancer has both replicas up
  local deadline=$(($(date +%s) + 120))
  until [ "$("$DOCKER" inspect --format '{{.State.Health.Status}}' "$1")" = healthy ] && [ "$(lb_up)" = 2 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "$1 not healthy and up in the balancer within 120 s (balancer has $(lb_up) up)"
    sleep 0.5
  done
}
for c in $apis; do wait_ready "$c"; done
until [ "$("$DOCKER" inspect --format '{{.State.Health.Status}}' "$lb")" = healthy ]; do sleep 1; done
say "API containers: $(echo $apis); balancer http://127.0.0.1:$LB_PORT with $(lb_up) replicas up"
# The balancer names its slots api1…api4 in the order Docker's DNS answered, not by container: which is which.
for c in $apis; do
  ip=$(ip_of "$c")
  slot=$(curl -fsS -m 2 "http://$lb_ip:8404/stats;csv" | awk -F, -v ip="$ip:3000" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "addr") a = i } $1 == "api" && $a == ip { print $2 }')
  say "  $c: $ip, the balancer's server api/${slot:-?}"
done

# The link's token, read where the example plugin keeps it (it received it from link create's /register).
token=$(compose exec -T plugin cat /var/lib/rolelink-local/plugin-state.json |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s).find(x=>x.guildId===process.argv[1]&&x.roleId===process.argv[2]);if(!r)process.exit(1);console.log(r.token)})' "$guild" "$role") ||
  fail "no token for the demo link in the example plugin's state"
base="http://127.0.0.1:$LB_PORT/api/role-link/$guild/$role"
# Each phase posts members no earlier phase posted (the demo list holds the first 20), so every request
# is a real write that starts a real sync, in both phases alike.
# Run it in a subshell, `(load …)`: exec makes node the subshell's process, so the SIGTERM that ends the
# rolling phase reaches node itself (it then waits for its requests in flight and writes its counts).
load() { # load <name> <seconds (0 = until SIGTERM)> <first member offset> <ids>
  ROLL_TOKEN=$token exec node --import tsx scripts/deploy/post-load.ts --base "$base" --rate "$rate" --seconds "$2" \
    --first-id "$((first_member + $3))" --ids "$4" --out "$state/load-$1.json"
}
since() { date -u +%Y-%m-%dT%H:%M:%S.%NZ; }

step "warm-up: 5 s of the load (not counted)"
(load warmup 5 20 $((5 * rate)))
done_step

# The host's load average (1 min) at each phase's start and end: the figures depend on what else runs.
loadavg() { cut -d' ' -f1 /proc/loadavg; }
step "baseline: $baseline_s s at $rate POST/s, no restart"
b0=$(since)
lb0=$(loadavg)
(load baseline "$baseline_s" $((20 + 5 * rate)) $((baseline_s * rate)))
b1=$(since)
lb1=$(loadavg)
done_step

step "rolling restart under the same load: docker stop (default grace), docker start, healthy, then the next"
r0=$(since)
lr0=$(loadavg)
offset=$((20 + (5 + baseline_s) * rate))
(load rolling 0 "$offset" $((DEMO_MEMBERS - offset))) &
load_pid=$!
sleep 5
for c in $apis; do
  t=$(date +%s%3N)
  say "$(ts) docker stop $c"
  "$DOCKER" stop "$c" >/dev/null
  stopped=$(date +%s%3N)
  code=$("$DOCKER" inspect --format '{{.State.ExitCode}}' "$c")
  say "$(ts)   stopped after $((stopped - t)) ms, exit code $code (0: drained and closed; 137: killed at the grace period's end)"
  "$DOCKER" start "$c" >/dev/null
  wait_ready "$c"
  say "$(ts)   started again; healthy and up in the balancer $(($(date +%s%3N) - stopped)) ms after it stopped"
done
sleep 5
kill -TERM "$load_pid"
wait "$load_pid"
load_pid=
r1=$(since)
lr1=$(loadavg)
done_step

# The balancer logs only requests with an error, a retry or a redispatch (option dontlog-normal), and its
# servers' state changes: per phase, how many POSTs it had to retry on the other replica.
lb_posts() { "$DOCKER" logs --since "$1" --until "$2" "$lb" 2>&1 | grep -c '"POST ' || true; }
# Its state changes (logged twice by HAProxy: on stderr with a [WARNING] prefix and on stdout; the stdout copy).
lb_events() { "$DOCKER" logs -t --since "$1" --until "$2" "$lb" 2>&1 | grep -E '^[^ ]+ Server api/api[0-9]+ is (DOWN|UP)' |
  sed -E 's/^[^T]*T([0-9:.]{12})[0-9]*Z Server (api\/api[0-9]+ is [A-Z]+)(, reason: [^,]*(, code: [0-9]+)?)?.*$/    \1 \2\3/' || true; }
printf '%s\n%s\n%s\n%s\n' "$(lb_posts "$b0" "$b1")" "$(lb_posts "$r0" "$r1")" "$lb0 → $lb1" "$lr0 → $lr1" >"$state/lb-counts"
say "balancer's server state changes during the rolling phase:"
lb_events "$r0" "$r1"

echo
node -e '
const fs = require("fs");
const [dir, rate] = process.argv.slice(1);
const [lbBase, lbRoll, loadBase, loadRoll] = fs.readFileSync(dir + "/lb-counts", "utf8").trim().split("\n");
const rows = [["baseline (no restart)", "baseline", lbBase, loadBase], ["rolling restart of api 1, then api 2", "rolling", lbRoll, loadRoll]];
console.log(`steady POST /users/:userId at ${rate}/s through the load balancer; goal: 0 failed during the rolling restart`);
console.log("| phase | duration | requests | failed | outcomes | latency p50 / p99 / max | logged by the balancer (error or retry) | host load average, start → end |");
console.log("|---|---|---|---|---|---|---|---|");
for (const [name, file, lb, load] of rows) {
  const r = JSON.parse(fs.readFileSync(`${dir}/load-${file}.json`, "utf8"));
  const l = r.latency_ms;
  console.log(`| ${name} | ${r.seconds} s | ${r.sent} | ${r.failed} | ${Object.entries(r.outcomes).map(([k, v]) => k + ": " + v).join(", ")} | ${l.p50} / ${l.p99} / ${l.max} ms | ${lb} | ${load} |`);
  for (const f of r.failures.slice(0, 10)) console.log(`    failed at ${f.at}: ${f.outcome}`);
  const slow = r.slow_over_1s;
  if (slow.count > 0) console.log(`    ${slow.count} answers took over 1 s; their requests started between ${slow.first[0].at.slice(11, 23)} and ${slow.first[slow.first.length - 1].at.slice(11, 23)} UTC`);
}
const failed = JSON.parse(fs.readFileSync(`${dir}/load-rolling.json`, "utf8")).failed;
console.log(failed === 0 ? "goal met: 0 failed requests during the rolling restart" : `goal NOT met: ${failed} failed requests during the rolling restart`);
' "$state" "$rate"
echo

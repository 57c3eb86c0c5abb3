#!/usr/bin/env bash
# Figures for docs/benchmarks.md, measured on the images of a running local stack
# (`bash scripts/deploy-local.sh --keep` first): image sizes, start to ready per image, idle RSS per
# container (docker stats). Prints Markdown table rows.
#   bash scripts/deploy/measure.sh [runs per image, default 5]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
runs=${1:-5}
project=rolelink-local
container() { "$DOCKER" ps -aq --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=$1" | head -1; }
ip_of() { "$DOCKER" inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }
now_ms() { date +%s%3N; }

echo "| image | size |"
echo "|---|---|"
for t in api plugin-broker bot-worker dashboard migrate cli local-tools; do
  echo "| rolelink/$t:local | $("$DOCKER" image inspect --format '{{.Size}}' "rolelink/$t:local" | awk '{printf "%.0f MB", $1/1e6}') |"
done
for i in "${NODE_IMAGE:-rolelink-local/node:24.22}" "${POSTGRES_IMAGE:-rolelink-local/postgres:15}" "${REDIS_IMAGE:-rolelink-local/redis:7.0}"; do
  echo "| $i (base, built locally) | $("$DOCKER" image inspect --format '{{.Size}}' "$i" | awk '{printf "%.0f MB", $1/1e6}') |"
done

# Start to ready: `docker start` of the stopped container until GET /readyz answers 200 on its address
# (polled every 20 ms from the host), the median and the range of `runs` starts.
echo
echo "| image | start to /readyz 200, median (min–max) of $runs |"
echo "|---|---|"
for pair in api:3000 plugin-broker:3002 bot-worker:3003 dashboard:3001; do
  svc=${pair%%:*} port=${pair##*:}
  c=$(container "$svc")
  times=()
  for _ in $(seq 1 "$runs"); do
    "$DOCKER" stop -t 30 "$c" >/dev/null
    t0=$(now_ms)
    "$DOCKER" start "$c" >/dev/null
    ip=$(ip_of "$c")
    until curl -fs -o /dev/null -m 1 "http://$ip:$port/readyz"; do sleep 0.02; done
    times+=($(($(now_ms) - t0)))
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "| rolelink/$svc:local | $(echo "$sorted" | sed -n "$(((runs + 1) / 2))p") ms ($(echo "$sorted" | head -1)–$(echo "$sorted" | tail -1)) |"
done
# migrate: a run with nothing to apply, from `docker start` to its exit 0.
c=$(container migrate)
times=()
for _ in $(seq 1 "$runs"); do
  t0=$(now_ms)
  "$DOCKER" start -a "$c" >/dev/null 2>&1
  times+=($(($(now_ms) - t0)))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "| rolelink/migrate:local (no pending migration, to exit 0) | $(echo "$sorted" | sed -n "$(((runs + 1) / 2))p") ms ($(echo "$sorted" | head -1)–$(echo "$sorted" | tail -1)) |"

# Idle memory once the restarts above have settled: three docker stats samples 10 s apart, the last shown.
echo
echo "| container | idle memory (docker stats), 3 samples 10 s apart |"
echo "|---|---|"
for n in 1 2 3; do
  "$DOCKER" stats --no-stream --format '{{.Name}} {{.MemUsage}}' $("$DOCKER" ps -q --filter "label=com.docker.compose.project=$project") | sort >"/tmp/rolelink-stats-$n"
  [ $n = 3 ] || sleep 10
done
join <(awk '{print $1, $2}' /tmp/rolelink-stats-1) <(awk '{print $1, $2}' /tmp/rolelink-stats-2) | join - <(awk '{print $1, $2}' /tmp/rolelink-stats-3) |
  awk '{printf "| %s | %s, %s, %s |\n", $1, $2, $3, $4}'
rm -f /tmp/rolelink-stats-*

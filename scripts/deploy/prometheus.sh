#!/usr/bin/env bash
# Debian's Prometheus on a running Compose stack, with the shipped scrape config (scripts/deploy/prometheus.yml,
# unchanged) and the shipped alerts (k8s/monitoring/prometheus-rule.yaml's `groups:`, as rules.yaml beside it):
#   bash scripts/deploy/prometheus.sh up [project]     build rolelink/prometheus:local (scripts/deploy/prometheus),
#                                                      start it on the project's network and print its URL
#   bash scripts/deploy/prometheus.sh down [project]   stop and remove it
# project: the Compose project (ROLELINK_DEPLOY_PROJECT, default rolelink-local: `pnpm deploy:local --keep`'s).
# PROMETHEUS_PORT: the host port on 127.0.0.1 (default 9090). It runs on the project's network because the
# scrape config finds every replica through Docker's DNS (the service names api, bot-worker, …).
# Used by `pnpm test:alerts` (test/deploy/live-alerts.deploy.test.ts); docs/operations.md, "Alerts proven live".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$root"

cmd=${1:-}
project=${2:-${ROLELINK_DEPLOY_PROJECT:-rolelink-local}}
name="$project-prometheus"
state=${ROLELINK_DEPLOY_STATE:-$root/.data/deploy-local}
conf="$state/prometheus-$project"

case "$cmd" in
up)
  network=$("$DOCKER" network ls -q --filter "label=com.docker.compose.project=$project" | head -1)
  [ -n "$network" ] || fail "no network of the Compose project $project: start the stack first (bash scripts/deploy-local.sh --keep)"
  # Debian bookworm: the official debian image where a registry serves it, else the local root filesystem.
  base=debian:bookworm-slim
  if ! have_image "$base" && have_image rolelink-local/bookworm-minbase:latest; then base=rolelink-local/bookworm-minbase:latest; fi
  mkdir -p "$state"
  step "building rolelink/prometheus:local (Debian's prometheus package on $base)"
  "$DOCKER" build -q --build-arg "BASE_IMAGE=$base" -t rolelink/prometheus:local "$here/prometheus" >"$state/build-prometheus.log" 2>&1 ||
    { tail -30 "$state/build-prometheus.log" >&2; fail "docker build of rolelink/prometheus:local failed (log: $state/build-prometheus.log)"; }
  done_step
  # The shipped files as they are: the scrape config copied, the PrometheusRule's groups as a rules file.
  rm -rf "$conf" && mkdir -p "$conf"
  cp "$here/prometheus.yml" "$conf/prometheus.yml"
  node -e 'const y=require("yaml");const r=y.parse(require("fs").readFileSync(process.argv[1],"utf8"));process.stdout.write(y.stringify({groups:r.spec.groups}))' \
    k8s/monitoring/prometheus-rule.yaml >"$conf/rules.yaml"
  chmod -R a+rX "$conf"
  "$DOCKER" rm -f "$name" >/dev/null 2>&1 || true
  port=${PROMETHEUS_PORT:-9090}
  "$DOCKER" run -d --name "$name" --label "rolelink.prometheus-for=$project" --network "$network" \
    -p "127.0.0.1:$port:9090" -v "$conf:/etc/prometheus:ro" rolelink/prometheus:local >/dev/null
  for _ in $(seq 1 120); do curl -fsS "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break; sleep 0.5; done
  curl -fsS "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 || { "$DOCKER" logs --tail 30 "$name" >&2 || true; fail "Prometheus did not become ready within 60 s"; }
  say "Prometheus $("$DOCKER" exec "$name" prometheus --version 2>&1 | head -1 | awk '{print $3}') on $project: http://127.0.0.1:$port (targets /targets, alerts /alerts)"
  ;;
down)
  "$DOCKER" rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$conf"
  say "Prometheus of $project removed"
  ;;
*) fail "usage: bash scripts/deploy/prometheus.sh up|down [project]" ;;
esac

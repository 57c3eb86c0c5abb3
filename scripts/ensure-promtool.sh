#!/usr/bin/env bash
# The manifests test runs Prometheus's own promtool on the shipped alert rules and their unit tests
# (k8s/monitoring, scripts/manifests/monitoring.ts). Installs Debian's `prometheus` package, which carries
# it, when it is missing; without it the validator would check only names and runbooks.
set -euo pipefail
if command -v promtool >/dev/null 2>&1; then exit 0; fi
echo "› installing promtool for the manifests test (apt-get install prometheus)…"
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
# Another apt or dpkg run (unattended-upgrades, a second checkout's test run) may hold the lock: wait for
# it (up to PROMTOOL_LOCK_WAIT seconds, 10 min by default) instead of failing the whole test command.
# A failed install is not fatal either: the line below says what is then not checked.
wait_lock=(-o "DPkg::Lock::Timeout=${PROMTOOL_LOCK_WAIT:-600}")
$SUDO apt-get "${wait_lock[@]}" update -qq >/dev/null || echo "› apt-get update failed; trying the install with the lists there are" >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends prometheus >/dev/null || true
command -v promtool >/dev/null 2>&1 || { echo "✗ promtool did not install; the manifests test checks the alert rules' names and runbooks only" >&2; exit 0; }

#!/usr/bin/env bash
# The manifests test runs Prometheus's own promtool on the shipped alert rules and their unit tests
# (k8s/monitoring, scripts/manifests/monitoring.ts). Installs Debian's `prometheus` package, which carries
# it, when it is missing; without it the validator would check only names and runbooks.
set -euo pipefail
if command -v promtool >/dev/null 2>&1; then exit 0; fi
echo "› installing promtool for the manifests test (apt-get install prometheus)…"
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
command -v promtool >/dev/null 2>&1 || { echo "✗ promtool did not install; the manifests test checks the alert rules' names and runbooks only" >&2; exit 0; }

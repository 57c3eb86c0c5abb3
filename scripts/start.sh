#!/usr/bin/env bash
# README's first command: installs what is missing, then runs the whole system locally (scripts/stack.ts).
# Ports: API_PORT DASHBOARD_PORT BROKER_PORT WORKER_PORT EMULATOR_PORT PLUGIN_PORT. Stop with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "✗ Node.js with npm (any version from 20) is required to start: it installs the pinned Node.js (.node-version)." >&2
  exit 1
fi
echo "› checking Node.js $(cat .node-version)"
bash scripts/ensure-node.sh
echo "› checking pnpm"
bash scripts/ensure-pnpm.sh
echo "› installing dependencies (pnpm install --frozen-lockfile)…"
pnpm install --frozen-lockfile --reporter=append-only | sed -u 's/^/  install: /'
echo "› building the dashboard's front end (vite build)…"
pnpm --filter @rolelink/dashboard-web build --logLevel warn | sed -u 's/^/  web: /'
# exec: signals (Ctrl-C, SIGTERM) reach the orchestrator itself, which stops everything it started.
exec node --enable-source-maps --import tsx scripts/stack.ts "$@"

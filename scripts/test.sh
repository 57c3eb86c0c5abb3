#!/usr/bin/env bash
# README's test command: installs what is missing, starts PostgreSQL and Redis when none answer, applies
# migrations to a template database, then runs type checks, the linters (ESLint, Prettier's check) and
# every unit and integration test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
# The pinned Node.js (.node-version) first on PATH, whatever the machine's own Node is.
bash scripts/ensure-node.sh
bash scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile --reporter=append-only
pnpm typecheck
pnpm lint
# The browser tests serve the built front end and drive Debian's Chromium.
pnpm --filter @rolelink/dashboard-web build --logLevel warn
bash scripts/ensure-chromium.sh
bash scripts/ensure-promtool.sh
mkdir -p .data
results=.data/jest-results.json
rm -f "$results"
# No --forceExit: every test file closes what it opened, so Jest exits on its own. If it ever says
# "Jest did not exit one second after the test run has completed", a test leaks a connection, timer or
# server: find it with `pnpm exec tsx scripts/with-services.ts -- pnpm exec jest --detectOpenHandles <path>`
# and close it in that test's afterAll (or its harness's close()).
status=0
pnpm exec tsx scripts/with-services.ts -- pnpm exec jest --ci --json --outputFile="$results" "$@" || status=$?
# One plain closing line, whatever the runner printed above it.
if [ -f "$results" ]; then
  node -e 'const r=require(process.argv[1]); console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`)' "$(pwd)/$results"
fi
exit "$status"

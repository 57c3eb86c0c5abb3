#!/usr/bin/env bash
# README's test command: installs what is missing, starts PostgreSQL and Redis when none answer, applies
# migrations to a template database, then runs type checks and every unit and integration test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
bash scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile --reporter=append-only
pnpm typecheck
mkdir -p .data
results=.data/jest-results.json
rm -f "$results"
# --forceExit is a guard, not a fix (the suite exits without it; `--detectOpenHandles` finds a new leak):
# a test that leaks a connection must not hold CI until its time limit.
status=0
pnpm exec tsx scripts/with-services.ts -- pnpm exec jest --ci --forceExit --json --outputFile="$results" "$@" || status=$?
# One plain closing line, whatever the runner printed above it.
if [ -f "$results" ]; then
  node -e 'const r=require(process.argv[1]); console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`)' "$(pwd)/$results"
fi
exit "$status"

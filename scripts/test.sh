#!/usr/bin/env bash
# README's test command: installs what is missing, starts PostgreSQL and Redis when none answer, applies
# migrations to a template database, then runs type checks and every unit and integration test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.local/bin:$PATH"
bash scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile --reporter=append-only
pnpm typecheck
exec pnpm exec tsx scripts/with-services.ts -- pnpm exec jest --ci "$@"

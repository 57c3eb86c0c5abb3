#!/usr/bin/env bash
# Makes `pnpm` (the version pinned in package.json) available on a machine that has only Node 20 + npm.
set -euo pipefail
want=$(node -p "require('./package.json').packageManager.split('@')[1]")
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$want" ]; then exit 0; fi
echo "› installing pnpm $want" >&2
if corepack enable pnpm >/dev/null 2>&1 && corepack prepare "pnpm@$want" --activate >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$want" ]; then exit 0; fi
npm install --global --no-fund --no-audit --loglevel=error "pnpm@$want" >&2 \
  || npm install --global --prefix "$HOME/.local" --no-fund --no-audit --loglevel=error "pnpm@$want" >&2

#!/usr/bin/env bash
# Makes `pnpm` (the version pinned in package.json) available on a machine that has only Node + npm
# (scripts/ensure-node.sh runs first and puts the pinned Node on PATH).
# Installs into ~/.local (the callers put ~/.local/bin first on PATH): no root needed, and no corepack —
# corepack verifies registry signatures that a mirror may not carry, and when that fails it leaves a
# broken `pnpm` shim on PATH behind.
set -euo pipefail
want=$(node -p "require('./package.json').packageManager.split('@')[1]")
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$want" ]; then exit 0; fi
echo "› installing pnpm $want into ~/.local" >&2
npm install --global --prefix "$HOME/.local" --no-fund --no-audit --loglevel=error "pnpm@$want" >&2
if [ "$("$HOME/.local/bin/pnpm" --version)" != "$want" ]; then
  echo "✗ pnpm $want could not be installed (npm install --global --prefix ~/.local pnpm@$want)" >&2
  exit 1
fi

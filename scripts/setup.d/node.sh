#!/usr/bin/env bash
# Node binding: needs node >= 18 with its C++ headers (the addon is built
# against them, never downloaded) and npm. The binding has no npm
# dependencies, so nothing is installed from the registry here.
set -euo pipefail
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup node: node and npm are required (Node.js 20 with its headers)" >&2
  exit 1
fi
include="$(dirname "$(dirname "$(command -v node)")")/include/node"
if [ ! -f "$include/node.h" ] && [ ! -f /usr/include/node/node.h ]; then
  echo "setup node: node.h not found ($include or /usr/include/node)" >&2
  exit 1
fi
echo "setup node: node $(node --version), npm $(npm --version)"

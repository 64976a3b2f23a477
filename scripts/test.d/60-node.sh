#!/usr/bin/env bash
# Node binding: `npm install` in bindings/node builds the addon from this
# repository (CMake, SWIG, the local node headers; nothing downloaded), then
# `npm test` runs node's test runner, then the conformance runner for node.
set -euo pipefail
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
export RESPITE_NODE_BUILD_DIR="$build/node"
# The HTTP tests drive respite-fault-server, built by the core step (10-core.sh).
server="$build/release/tools/fault_server/respite-fault-server"
if [ ! -x "$server" ]; then
  cmake -S . -B "$build/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build/release" --target respite-fault-server -j2
fi
export RESPITE_FAULT_SERVER="$server"
(
  cd bindings/node
  npm install --no-audit --no-fund --no-package-lock
  npm test
)
# The runner drives the package just built (conformance/runners/node/run).
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 conformance/run --lang node --require node
else
  echo "60-node: jsonschema missing (scripts/setup.d/conformance.sh installs it); conformance runs in its own step"
fi

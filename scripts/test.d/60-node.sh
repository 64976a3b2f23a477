#!/usr/bin/env bash
# Node binding: `npm install` in bindings/node builds the Node-API addon from
# this repository (CMake, SWIG 4.5.1, node-addon-api, the local Node-API
# headers; no headers downloaded), then `npm test` runs node's test runner
# (test/other-node.test.js loads the same build under a second Node major,
# which setup.d/node.sh installs), then the conformance runner for node.
set -euo pipefail
bash scripts/setup.d/node.sh
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
export RESPITE_NODE_BUILD_DIR="$build/node"
export RESPITE_WERROR=ON
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

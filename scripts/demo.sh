#!/usr/bin/env bash
# The README's first command: sets up the machine, builds the respite command
# into build/release (BUILD_ROOT overrides build) and runs `respite demo`
# (extra arguments go to it, e.g. --time-scale 0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_ROOT:-build}/release"
bash scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target respite-cli
exec "$build/cli/respite" demo "$@"

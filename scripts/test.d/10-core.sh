#!/usr/bin/env bash
# Builds the core, its tests and benchmarks (RESPITE_WERROR=ON: warnings are errors) and runs ctest.
set -euo pipefail
cmake -S . -B "${BUILD_ROOT:-build}/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRESPITE_WERROR=ON >/dev/null
cmake --build "${BUILD_ROOT:-build}/release" -j2
ctest --test-dir "${BUILD_ROOT:-build}/release" --output-on-failure -j2

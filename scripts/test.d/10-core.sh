#!/usr/bin/env bash
# Builds the core, its tests and benchmarks (warnings are errors) and runs ctest.
set -euo pipefail
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/release -j2
ctest --test-dir build/release --output-on-failure -j2

#!/usr/bin/env bash
# Runs the conformance suite: every built runner over conformance/scenarios,
# checked against the expected values and across languages (C is required;
# scripts/test.d/10-core.sh builds its runner into ${BUILD_ROOT:-build}/release).
set -euo pipefail
bash scripts/setup.d/conformance.sh >/dev/null
python3 conformance/run --require c --quiet

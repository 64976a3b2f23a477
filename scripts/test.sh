#!/usr/bin/env bash
# Sets up a fresh machine and runs every test: each scripts/test.d/*.sh is one
# step (core, sanitizers, conformance, each binding ...). Every step runs even
# when an earlier one failed; the exit code is non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "setup failed"; exit 1; }

passed=0
failed=0
failed_steps=()
for step in scripts/test.d/*.sh; do
  name=$(basename "$step" .sh)
  echo "==== $name"
  start=$(date +%s)
  if bash "$step"; then
    passed=$((passed + 1))
    echo "==== $name: ok ($(( $(date +%s) - start ))s)"
  else
    failed=$((failed + 1))
    failed_steps+=("$name")
    echo "==== $name: FAILED ($(( $(date +%s) - start ))s)"
  fi
done

bash scripts/count-binding-lines.sh || true
[ "$failed" -gt 0 ] && echo "failed steps: ${failed_steps[*]}"
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Runs the conformance suite after every binding's step, so all built
# runners are compared together (conformance/run: every scenario against its
# expected values and across languages).
#
# C is always required (scripts/test.d/10-core.sh builds its runner). Every
# other language is required when its binding's build output exists under
# ${BUILD_ROOT:-build}: a binding that was built but whose runner exits 77
# (not built) then fails the run instead of being skipped silently.
set -euo pipefail
root="$(pwd)"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac

bash scripts/setup.d/conformance.sh >/dev/null

# What each binding's test step leaves under the build root once it built.
declare -A built_by=(
  [python]="$build/python-venv/bin/python"   # 40-python.sh
  [java]="$build/java-conformance"           # 50-java.sh (after mvn install)
  [node]="$build/node"                       # 60-node.sh (RESPITE_NODE_BUILD_DIR)
  [php]="$build/php/respite.so"              # 70-php.sh
)

require=(--require c)
for lang in "${!built_by[@]}"; do
  if [ -e "${built_by[$lang]}" ]; then
    require+=(--require "$lang")
  fi
done
# A runner directory this script does not know yet: require it when its run
# script does not say "not built" (exit 77) when given no scenario.
for run in conformance/runners/*/run; do
  lang="$(basename "$(dirname "$run")")"
  if [ "$lang" = c ] || [ -n "${built_by[$lang]+set}" ]; then
    continue
  fi
  status=0
  "$run" </dev/null >/dev/null 2>&1 || status=$?
  if [ "$status" -ne 77 ]; then
    require+=(--require "$lang")
  fi
done

# The driver's own checks first (normalising, D9, expected set-up errors).
python3 conformance/test_run.py
echo "90-conformance: ${require[*]}"
python3 conformance/run "${require[@]}" --quiet

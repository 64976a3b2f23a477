#!/usr/bin/env bash
# Instructions per protected no-op call, above a bare `await`, counted by
# callgrind (repeatable on a loaded machine, unlike times): each case runs
# 10,000 and 70,000 calls after the same warm-up (calls.js), and the
# difference is divided by 60,000, so start-up and warm-up cancel out.
# `node --predictable` keeps V8's compiler on the main thread, where
# callgrind counts it the same way every run. About 3 minutes; not a test.
#   bash bench/node/instructions.sh [case ...]   (default: every case)
# RESPITE_NODE_PACKAGE=<dir> counts another copy of the package (before/after).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
count() { # case calls -> instructions
  local out
  out="$(mktemp)"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null node --predictable "$here/calls.js" "$1" "$2" 2>"$out" >/dev/null
  grep -o 'refs: *[0-9,]*' "$out" | tr -dc '0-9'
  rm -f "$out"
}
per_call() {
  local few many
  few="$(count "$1" 10000)"
  many="$(count "$1" 70000)"
  echo $(((many - few) / 60000))
}
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(then respite attached cockatiel)
bare="$(per_call bare)"
declare -A above
for name in "${cases[@]}"; do above[$name]=$(($(per_call "$name") - bare)); done
echo "node $(node --version): instructions per call above a bare await ($bare)"
for name in "${cases[@]}"; do
  ratio=""
  [ -n "${above[cockatiel]:-}" ] && ratio="$(awk -v a="${above[$name]}" -v c="${above[cockatiel]}" 'BEGIN { printf "%.3f of cockatiel'"'"'s", a / c }')"
  printf '  %-10s %6d  %s\n' "$name" "${above[$name]}" "$ratio"
done

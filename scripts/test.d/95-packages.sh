#!/usr/bin/env bash
# Every artifact installed the way its ecosystem does, outside this checkout
# (issue 15): each scripts/package-tests/<part>.sh builds one artifact,
# copies it into an empty directory, installs it there and runs a small
# program that opens a gate, records failures and is refused.
set -uo pipefail
failed=0
for part in scripts/package-tests/*.sh; do
  [ -e "$part" ] || continue
  echo "-- $(basename "$part" .sh)"
  if ! bash "$part"; then
    echo "-- $(basename "$part" .sh): FAILED"
    failed=1
  fi
done
exit "$failed"

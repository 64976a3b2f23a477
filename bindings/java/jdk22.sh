#!/usr/bin/env bash
# Prints the home of a JDK 22 or later for the jar's multi-release part
# (pom profile java22: FFM instead of Unsafe on JDK 22+), or nothing:
# $RESPITE_JDK22 if set, else the newest under /usr/lib/jvm.
set -euo pipefail
if [ -n "${RESPITE_JDK22:-}" ]; then
  echo "$RESPITE_JDK22"
  exit 0
fi
best= best_major=0
for home in /usr/lib/jvm/*/; do
  home=${home%/}
  [ -x "$home/bin/javac" ] && [ -f "$home/release" ] || continue
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")
  if [ -n "$major" ] && [ "$major" -ge 22 ] && [ "$major" -gt "$best_major" ]; then
    best=$home best_major=$major
  fi
done
[ -z "$best" ] || echo "$best"

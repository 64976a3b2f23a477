#!/usr/bin/env bash
# Prints the home of a JDK 24 or later for the jar's multi-release part
# (pom profile java24: FFM instead of Unsafe on JDK 24+), or nothing:
# $RESPITE_JDK24 if set, else the newest under /usr/lib/jvm.
set -euo pipefail
if [ -n "${RESPITE_JDK24:-}" ]; then
  echo "$RESPITE_JDK24"
  exit 0
fi
best= best_major=0
for home in /usr/lib/jvm/*/; do
  home=${home%/}
  [ -x "$home/bin/javac" ] && [ -f "$home/release" ] || continue
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")
  if [ -n "$major" ] && [ "$major" -ge 24 ] && [ "$major" -gt "$best_major" ]; then
    best=$home best_major=$major
  fi
done
[ -z "$best" ] || echo "$best"

#!/usr/bin/env bash
# Java binding: JDK 17 and Maven come with the machine; Maven fetches the
# build's plugins and JUnit itself on first use. Only check they are there.
set -euo pipefail
command -v javac >/dev/null || { echo "setup.d/java: javac (JDK 17) is missing"; exit 1; }
command -v mvn >/dev/null || { echo "setup.d/java: mvn is missing"; exit 1; }
# A JDK 24+ (optional) builds the jar's multi-release part (FFM on JDK 24+,
# bindings/java/jdk24.sh finds it); none is in Debian 12's archive.
if [ -z "$(bash "$(dirname "$0")/../../bindings/java/jdk24.sh")" ]; then
  echo "setup.d/java: no JDK 24 or later under /usr/lib/jvm (or \$RESPITE_JDK24): the jar reads the fast path through Unsafe on every JDK"
fi

#!/usr/bin/env bash
# Java binding: Maven builds the JNI library (cmake: core + SWIG wrapper), the
# jar, its sources and javadoc jars, and runs the JUnit tests (HTTP ones against
# the respite-fault-server the pom builds: no environment variable needed, as
# for a user's `mvn install`); the jar is installed to ~/.m2 for bench/java.
# Then the conformance runner is built (its own Maven classpath) and run over every scenario for Java.
set -euo pipefail
# clean: SWIG leaves classes of removed types behind. -Werror only here, not in a user's install.
# With a JDK 24+ on the machine, the jar's multi-release part is built and its tests run on that JDK.
jdk24="$(bash bindings/java/jdk24.sh)"
env -u RESPITE_FAULT_SERVER mvn -B -q -f bindings/java clean install '-Dnative.warnings=-Wall;-Wextra;-Werror' \
  ${jdk24:+"-Drespite.jdk24=$jdk24"}

bash conformance/runners/java/build

if [ -x conformance/run ] && conformance/run --help 2>/dev/null | grep -q -- '--lang'; then
  conformance/run --lang java
fi

#!/usr/bin/env bash
# Java binding: Maven builds the JNI library (cmake: core + SWIG wrapper), the
# jar and runs the JUnit tests (HTTP ones against respite-fault-server); the jar is installed to ~/.m2 for bench/java.
# Then the conformance runner is built (its own Maven classpath) and run over every scenario for Java.
set -euo pipefail
build="${BUILD_ROOT:-build}"
# The HTTP tests start the core's fault-injecting server (10-core.sh builds it).
fault_server="$build/release/tools/fault_server/respite-fault-server"
if [ ! -x "$fault_server" ]; then
  cmake -S . -B "$build/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build/release" -j2 --target respite-fault-server >/dev/null
fi
RESPITE_FAULT_SERVER="$(cd "$(dirname "$fault_server")" && pwd)/respite-fault-server" \
  mvn -B -q -f bindings/java clean install  # clean: SWIG leaves classes of removed types behind

bash conformance/runners/java/build

if [ -x conformance/run ] && conformance/run --help 2>/dev/null | grep -q -- '--lang'; then
  conformance/run --lang java
fi

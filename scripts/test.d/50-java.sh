#!/usr/bin/env bash
# Java binding: Maven builds the JNI library (cmake: core + SWIG wrapper), the
# jar and runs the JUnit tests; the jar is installed to ~/.m2 for bench/java.
# Then the conformance runner is compiled and run over every scenario for Java.
set -euo pipefail
build="${BUILD_ROOT:-build}"
mvn -B -q -f bindings/java install

classes="$build/java-conformance"
rm -rf "$classes"
mkdir -p "$classes"
javac -d "$classes" -cp bindings/java/target/respite-0.1.0.jar \
  $(find conformance/runners/java/src -name '*.java')

if [ -x conformance/run ] && conformance/run --help 2>/dev/null | grep -q -- '--lang'; then
  conformance/run --lang java
fi

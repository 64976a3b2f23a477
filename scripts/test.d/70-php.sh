#!/usr/bin/env bash
# PHP binding: CMake builds the extension (core + SWIG wrapper of swig/php.i)
# into ${BUILD_ROOT:-build}/php/respite.so, PHPUnit runs bindings/php/tests
# with it loaded, then the conformance runner (which finds the extension the
# same way) runs over every scenario when the driver can select PHP.
set -euo pipefail
root="$(pwd)"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
cmake -S bindings/php -B "$build/php" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/php" -j2
extension="$build/php/respite.so"
php -n -d extension="$extension" -r 'exit(function_exists("respite_gate_new") ? 0 : 1);'
php -d extension="$extension" "$(command -v phpunit)" -c bindings/php/phpunit.xml

if [ -x conformance/run ] && conformance/run --help 2>/dev/null | grep -q -- '--lang'; then
  BUILD_ROOT="$build" conformance/run --lang php
fi

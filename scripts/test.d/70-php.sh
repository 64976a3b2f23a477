#!/usr/bin/env bash
# PHP binding: CMake builds the extension (core + SWIG wrapper of swig/php.i)
# into ${BUILD_ROOT:-build}/php/respite.so, PHPUnit runs bindings/php/tests
# with it loaded (the HTTP tests against respite-fault-server; the shared gate
# under php-fpm with cgi-fcgi; a durable queue fed by a php-fpm pool and
# drained by `respite deliver`), then the conformance runner (which finds the extension the
# same way) runs over every scenario when the driver can select PHP.
set -euo pipefail
root="$(pwd)"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
cmake -S bindings/php -B "$build/php" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/php" -j2
extension="$build/php/respite.so"
php -n -d extension="$extension" -r 'exit(function_exists("respite_gate_new") && function_exists("respite_sender_new") ? 0 : 1);'

# The HTTP tests run against respite-fault-server and DeliverFpmTest runs
# `respite deliver`, which 10-core.sh builds; build just those programs when
# this step runs on its own.
fault_server="$build/release/tools/fault_server/respite-fault-server"
cli="$build/release/cli/respite"
if [ ! -x "$fault_server" ] || [ ! -x "$cli" ]; then
  cmake -S . -B "$build/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build/release" --target respite-fault-server respite-cli -j2
fi
# SharedGateFpmTest and DeliverFpmTest start php-fpm with the same extension.
RESPITE_FAULT_SERVER="$fault_server" RESPITE_PHP_EXTENSION="$extension" RESPITE_CLI="$cli" php -d extension="$extension" "$(command -v phpunit)" -c bindings/php/phpunit.xml

if [ -x conformance/run ] && conformance/run --help 2>/dev/null | grep -q -- '--lang'; then
  BUILD_ROOT="$build" conformance/run --lang php
fi

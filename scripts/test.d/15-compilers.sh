#!/usr/bin/env bash
# The core (library, HTTP module, command, benchmarks; no tests) builds
# warning-free with -Werror under gcc Release, gcc Debug, gcc -O3, gcc -Og and
# clang Release: the builds users make (issue 15 item 1). Build type None
# adds no flags of its own, so -O3 / -Og are the only ones.
set -uo pipefail
status=0
build() { # name compiler build-type extra-C-flags
  local dir="${BUILD_ROOT:-build}/compilers-$1"
  echo "-- $1"
  if ! { CC="$2" cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$3" -DCMAKE_C_FLAGS="$4" \
           -DRESPITE_WERROR=ON -DRESPITE_BUILD_TESTS=OFF >/dev/null &&
         cmake --build "$dir" -j2 >/dev/null; }; then
    echo "-- $1: FAILED"
    status=1
  fi
}
build gcc-release gcc Release ""
build gcc-debug gcc Debug ""
build gcc-o3 gcc None "-O3"
build gcc-og gcc None "-Og -g"
build clang-release clang Release ""
exit $status

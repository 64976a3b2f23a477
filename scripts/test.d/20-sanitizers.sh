#!/usr/bin/env bash
# Unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# multi-threaded stress tests (and unit tests) under ThreadSanitizer. Both
# kinds run even when the first fails.
set -uo pipefail
status=0
for kind in address thread; do
  dir="${BUILD_ROOT:-build}/$kind"
  if cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DRESPITE_SANITIZE=$kind -DRESPITE_WERROR=ON -DRESPITE_BUILD_BENCH=OFF >/dev/null &&
     cmake --build "$dir" -j2; then
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 TSAN_OPTIONS=halt_on_error=1 \
      ctest --test-dir "$dir" --output-on-failure || status=1
  else
    status=1
  fi
done
exit $status

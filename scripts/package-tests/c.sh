#!/usr/bin/env bash
# The C libraries installed with `cmake --install` into a prefix outside this
# checkout, then used from there as other projects do: a CMake project with
# find_package(respite), and a Makefile with pkg-config, each linking shared
# and static. Each builds and runs a program that opens a gate, records
# failures and is refused. Nothing of this checkout is on any path they see.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
build="${BUILD_ROOT:-build}/package-c"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The install tree, then moved: it must not depend on where it was made.
# The commands of the README and docs/c.md.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRESPITE_BUILD_TESTS=OFF -DRESPITE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j2 >/dev/null
cmake --install "$build" --prefix "$work/staging" >/dev/null
mv "$work/staging" "$work/prefix"
prefix="$work/prefix"
if grep -rl "$repo" "$prefix" >/dev/null; then
  echo "the install tree names the checkout:" >&2
  grep -rl "$repo" "$prefix" >&2
  exit 1
fi

mkdir "$work/project"
cd "$work/project"
cat > gate_demo.c <<'C'
/* Opens a gate, records failures until it opens, and is refused. */
#include <respite.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    respite_error err = {0};
    if (strcmp(respite_version(), RESPITE_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, headers %s\n", respite_version(), RESPITE_VERSION_STRING);
        return 1;
    }
    respite_settings *settings = respite_settings_new("gate", &err);
    if (!settings || respite_settings_set_integer(settings, "failures_to_enter_recovery", 3, &err) != RESPITE_OK) {
        fprintf(stderr, "settings: %s\n", err.message);
        return 1;
    }
    respite_gate *gate = respite_gate_new(settings, &err);
    respite_settings_free(settings);
    if (!gate) {
        fprintf(stderr, "gate: %s\n", err.message);
        return 1;
    }
    double now = 100.0;
    for (int i = 0; i < 3; i++) {
        int64_t permit = respite_gate_admit(gate, now, &err);
        if (permit <= 0 ||
            respite_gate_report(gate, permit, RESPITE_OUTCOME_SERVER_ERROR, 0, now, &err) != RESPITE_OK) {
            fprintf(stderr, "failure %d: %s\n", i + 1, err.message);
            return 1;
        }
    }
    int64_t permit = respite_gate_admit(gate, now + 0.5, &err);
    respite_gate_free(gate);
    if (permit != 0 || err.status != RESPITE_E_TEMPORARILY_UNAVAILABLE || !(err.retry_after > 0)) {
        fprintf(stderr, "expected a refusal, got permit %lld, status %d\n", (long long)permit, err.status);
        return 1;
    }
    printf("%s: %s (retry after %.1fs)\n", respite_status_name(err.status), err.message, err.retry_after);
    return 0;
}
C

check_refused() { # program
  local out
  out=$(env -u LD_LIBRARY_PATH "$1")
  echo "   $1: $out"
  case "$out" in temporarily_unavailable:*"retry after"*) ;; *) echo "unexpected output" >&2; return 1 ;; esac
}

# CMake: find_package(respite), the shared and the static library.
cat > CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(gate_demo C)
find_package(respite 0.1 REQUIRED)
add_executable(demo_shared gate_demo.c)
target_link_libraries(demo_shared PRIVATE respite::respite)
add_executable(demo_static gate_demo.c)
target_link_libraries(demo_static PRIVATE respite::respite_static)
# respite::http brings respite::respite: linking it must work alone.
add_executable(demo_http gate_demo.c)
target_link_libraries(demo_http PRIVATE respite::http)
CMAKE
cmake -S . -B cmake-build -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build cmake-build -j2 >/dev/null
echo "-- CMake find_package(respite)"
for p in demo_shared demo_static demo_http; do check_refused "cmake-build/$p"; done
if ldd cmake-build/demo_static | grep -q librespite; then
  echo "demo_static links librespite dynamically" >&2
  exit 1
fi

# pkg-config: shared (rpath to the prefix) and fully static respite.
cat > Makefile <<'MAKE'
PKG = PKG_CONFIG_PATH=$(PREFIX)/lib/pkgconfig pkg-config
LIBDIR = $(shell $(PKG) --variable=libdir respite)

all: pc_shared pc_static pc_http

pc_shared: gate_demo.c
	$(CC) -o $@ $< $(shell $(PKG) --cflags respite) $(shell $(PKG) --libs respite) -Wl,-rpath,$(LIBDIR)

# The archive by name, the rest from --static (Libs.private, Requires.private).
pc_static: gate_demo.c
	$(CC) -o $@ $< $(shell $(PKG) --cflags respite) $(LIBDIR)/librespite.a \
	  $(filter-out -lrespite,$(shell $(PKG) --static --libs respite))

pc_http: gate_demo.c
	$(CC) -o $@ $< $(shell $(PKG) --cflags respite-http) $(shell $(PKG) --libs respite-http) -Wl,-rpath,$(LIBDIR)
MAKE
make -s PREFIX="$prefix"
echo "-- Makefile with pkg-config"
for p in pc_shared pc_static pc_http; do check_refused "./$p"; done
if ldd pc_static | grep -q librespite; then
  echo "pc_static links librespite dynamically" >&2
  exit 1
fi

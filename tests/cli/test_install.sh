#!/usr/bin/env bash
# The installed respite does not link libmicrohttpd: the demo's endpoints
# (the fault server) live in the program respite-demo, installed in
# libexec/respite, which `respite demo` runs. RESPITE_BUILD_DIR is the
# build tree to install (set by tests/cli/CMakeLists.txt).
source "$(dirname "$0")/lib.sh"
build="${RESPITE_BUILD_DIR:?the build tree (RESPITE_BUILD_DIR)}"
prefix="$(mktemp -d)"
trap 'rm -f "$out" "$err"; rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix" >"$out" 2>"$err"
code=$?
expect_code 0 "cmake --install"
[ -x "$prefix/bin/respite" ] || fail "respite is installed in bin"
[ -x "$prefix/libexec/respite/respite-demo" ] || fail "respite-demo is installed in libexec/respite"

ldd "$prefix/bin/respite" >"$out" 2>"$err"
grep -q 'libc\.so' "$out" || fail "ldd lists the installed respite's libraries"
expect_no_out "libmicrohttpd" "the installed respite does not link libmicrohttpd"
expect_no_out "not found" "every library of the installed respite is found"
ldd "$respite" >"$out" 2>"$err"
expect_no_out "libmicrohttpd" "the built respite does not link libmicrohttpd"
ldd "$prefix/libexec/respite/respite-demo" >"$out" 2>"$err"
expect_out "libmicrohttpd" "respite-demo is the part that links it"

# the installed respite finds its demo
"$prefix/bin/respite" demo --help >"$out" 2>"$err"; code=$?
expect_code 0 "the installed respite demo --help"
expect_out "usage: respite demo [--time-scale X]" "the demo's help, from respite-demo"
"$prefix/bin/respite" demo --time-scale 0 >"$out" 2>"$err"; code=$?
expect_code 2 "the demo's own usage errors come through"
expect_err "--time-scale must be a number from 0.01 to 10 (got 0)" "the demo's message"

# without respite-demo: a clear error, the other commands unaffected
mkdir -p "$prefix/alone/bin"
cp "$prefix/bin/respite" "$prefix/alone/bin/respite"
"$prefix/alone/bin/respite" demo --help >"$out" 2>"$err"; code=$?
expect_code 2 "respite demo without respite-demo"
expect_err "respite demo: the demo's program respite-demo is missing" "says what is missing"
"$prefix/alone/bin/respite" check-policy "$source_dir/tests/cli/policies/valid.json" >"$out" 2>"$err"; code=$?
expect_code 0 "check-policy needs no respite-demo"

finish

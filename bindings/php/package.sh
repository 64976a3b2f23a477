#!/usr/bin/env bash
# Makes the PHP extension's source tarball php_respite-<version>-src.tgz
# (the name PIE's pre-packaged-source looks for) in DIR (default
# ${BUILD_ROOT:-build}/php-package) and prints its path. Inside, one folder
# respite-<version>/: ext/config.m4, ext/composer.json and the hand-written C
# beside the wrapper (ext/*.c, ext/*.h), the SWIG wrapper
# made now with the pinned SWIG (the CMake build's respite_php_swig_compilation
# target), and the core's headers and sources copied from core/ into lib/.
# Run from the repository root.
set -euo pipefail
root="$(pwd)"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
out="${1:-$build/php-package}"
version="$(sed -n 's/^project(respite VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
[ -n "$version" ] || { echo "package.sh: no version in CMakeLists.txt project()" >&2; exit 1; }

cmake -S bindings/php -B "$build/php" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/php" --target respite_php_swig_compilation >/dev/null

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
dir="$stage/respite-$version"
mkdir -p "$dir/lib/src/http" "$dir/lib/src/fleet"
cp bindings/php/ext/config.m4 bindings/php/ext/composer.json bindings/php/ext/*.c bindings/php/ext/*.h "$dir/"
cp "$build/php/wrap/phpPHP7_wrap.c" "$dir/respite_wrap.c"
cp "$build/php/wrap/php_respite.h" "$dir/"
cp -r core/include "$dir/lib/"
cp core/src/*.c core/src/*.h "$dir/lib/src/"
cp core/src/http/*.c core/src/http/*.h "$dir/lib/src/http/"
cp core/src/fleet/*.c core/src/fleet/*.h "$dir/lib/src/fleet/"
# The licence text travels with the sources it covers.
if [ -f LICENSE ]; then cp LICENSE "$dir/"; fi

mkdir -p "$out"
tarball="$out/php_respite-$version-src.tgz"
tar -czf "$tarball" -C "$stage" "respite-$version"
echo "$tarball"

#!/usr/bin/env bash
# The npm tarball installed as a user installs it: `npm pack` in
# bindings/node (prepack copies the core in and prebuilds the linux-x64
# Node-API addon), the .tgz copied into an empty directory outside the
# checkout, `npm init -y && npm install ./respite-*.tgz` there (the prebuild
# is used: nothing is compiled), then a gate that refuses after failures,
# under the main Node and under the second Node major (setup.d/node.sh).
set -euo pipefail
bash scripts/setup.d/node.sh >/dev/null
tools="${RESPITE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/respite}"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/pack" "$work/app"

# prepack needs node-addon-api in bindings/node (a checkout's npm install).
[ -d bindings/node/node_modules/node-addon-api ] ||
  (cd bindings/node && npm install --no-audit --no-fund --no-package-lock --ignore-scripts >/dev/null)
(cd bindings/node && RESPITE_WERROR=ON RESPITE_NODE_BUILD_DIR="$build/node-prebuild" npm pack --pack-destination "$work/pack") > "$work/pack.log" 2>&1 ||
  { cat "$work/pack.log"; exit 1; }
tarball="$(ls "$work"/pack/respite-*.tgz)"
contents="$(tar -tzf "$tarball")"
for file in prebuilds/linux-x64/respite.napi.node vendor/core/CMakeLists.txt vendor/respite_node.cxx; do
  grep -qx "package/$file" <<<"$contents" || { echo "package-tests/node: $file is not in the tarball" >&2; exit 1; }
done
cp "$tarball" "$work/app/"

cat > "$work/app/refuse.js" <<'JS'
'use strict';
const assert = require('node:assert');
const { Gate, TemporarilyUnavailableError } = require('respite');
const gate = new Gate({ failuresToEnterRecovery: 2, recoverySeconds: 30 });
for (let i = 0; i < 2; i++) gate.report(gate.acquire(), 503);
assert.throws(() => gate.acquire(), (error) => {
  assert.ok(error instanceof TemporarilyUnavailableError, String(error));
  assert.ok(error.retryAfter > 0 && error.retryAfter <= 30, `retryAfter ${error.retryAfter}`);
  return true;
});
const loaded = Object.keys(require.cache).filter((file) => file.endsWith('.node'));
assert.deepStrictEqual(loaded, [require('node:path').join(__dirname, 'node_modules/respite', process.argv[2])]);
console.log(`refused, retry after ${gate.retryAfter().toFixed(1)}s`);
gate.close();
JS

# Outside the checkout, with no compiler on PATH: an install that tried to
# build would fail. PATH keeps only node and npm (and the shell's basics).
(
  cd "$work/app"
  mkdir bin
  ln -s "$(command -v node)" bin/node
  ln -s "$(command -v npm)" bin/npm
  export PATH="$work/app/bin:/usr/bin:/bin"
  for tool in cc gcc g++ c++ cmake make; do
    if command -v "$tool" >/dev/null; then printf '#!/bin/sh\necho "%s must not run" >&2; exit 1\n' "$tool" > "bin/$tool"; chmod +x "bin/$tool"; fi
  done
  npm init -y >/dev/null
  npm install --no-audit --no-fund "./$(basename "$tarball")" > install.log 2>&1 || { cat install.log; exit 1; }
  # npm >= 11 may skip install scripts until approved; when it runs
  # scripts/install.js, that must keep the prebuild, never build.
  if grep -q 'respite: built' install.log || [ -e node_modules/respite/native ] || [ -e node_modules/respite/build ]; then
    cat install.log; echo "package-tests/node: the install built the addon instead of using the prebuild" >&2; exit 1
  fi
  (cd node_modules/respite && node scripts/install.js) | grep -q 'respite: using the prebuilt addon'
  node refuse.js prebuilds/linux-x64/respite.napi.node
  "$tools/node-other" refuse.js prebuilds/linux-x64/respite.napi.node
)
# Where no prebuild fits, the install script builds from the tarball alone
# (vendored core, pregenerated wrapper: CMake and a compiler, no SWIG).
(
  cd "$work/app/node_modules/respite"
  rm -r prebuilds
  unset RESPITE_NODE_BUILD_DIR
  node scripts/install.js > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
  grep -q 'SWIG' "$work/build.log" && { cat "$work/build.log"; echo "package-tests/node: the source build ran SWIG" >&2; exit 1; }
  cd "$work/app"
  node refuse.js native/respite_native.node
)
echo "package-tests/node: npm tarball installed outside the checkout; prebuild used (gate refused under node $(node --version) and $("$tools/node-other" --version)); source build from the tarball alone refused too"

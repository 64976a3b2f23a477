#!/usr/bin/env bash
# Node binding: needs node >= 18 with its Node-API headers (node_api.h; the
# addon is built against them, never downloaded) and npm. `npm install` in
# bindings/node brings node-addon-api (header-only, pinned in package.json).
# The addon is Node-API: built once, it must load under another Node major
# too. The Node step proves it with a second Node from npm (the
# platform's node-<os>-<arch> package, the binary alone, no install script),
# installed here outside the work tree: $RESPITE_TOOLS/node-<version>, with
# the link $RESPITE_TOOLS/node-other to its binary (test/other-node.test.js).
set -euo pipefail
other_version=22.23.3
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup node: node and npm are required (Node.js 20 with its headers)" >&2
  exit 1
fi
include="$(dirname "$(dirname "$(command -v node)")")/include/node"
if [ ! -f "$include/node_api.h" ] && [ ! -f /usr/include/node/node_api.h ]; then
  echo "setup node: node_api.h not found ($include or /usr/include/node)" >&2
  exit 1
fi
echo "setup node: node $(node --version), npm $(npm --version)"

tools="${RESPITE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/respite}"
prefix="$tools/node-$other_version"
package="node-$(node -p 'process.platform + "-" + process.arch')"
binary="$prefix/node_modules/$package/bin/node"
if [ -x "$binary" ] && [ "$("$binary" --version)" = "v$other_version" ]; then
  ln -sfn "$binary" "$tools/node-other"
  echo "setup node: second node v$other_version present ($binary)"
  exit 0
fi
rm -rf "$prefix"
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-save --no-audit --no-fund --ignore-scripts "$package@$other_version" >/dev/null
[ "$("$binary" --version)" = "v$other_version" ]
ln -sfn "$binary" "$tools/node-other"
echo "setup node: second node v$other_version installed ($binary)"

#!/usr/bin/env bash
# The Python binding needs Python 3.9+ with venv and its C headers; pip
# fetches the build backend (scikit-build-core) and pytest into the
# binding's own virtual environment (scripts/test.d/40-python.sh).
# Idempotent: installs Debian's packages only when something is missing.
set -euo pipefail
if python3 - <<'PY' 2>/dev/null
import os, sys, sysconfig, venv, ensurepip
assert sys.version_info >= (3, 9)
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
PY
then
  echo "setup: python3 with venv and headers present"
  exit 0
fi
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends python3 python3-dev python3-venv >/dev/null
echo "setup: python3-dev and python3-venv installed"

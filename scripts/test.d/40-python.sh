#!/usr/bin/env bash
# Python binding: builds and installs bindings/python into a fresh-enough
# virtual environment (${BUILD_ROOT:-build}/python-venv) with pip, runs its
# pytest suite (the HTTP tests against respite-fault-server), then the conformance scenarios through the Python runner
# (compared with the C runner when scripts/test.d/10-core.sh built it).
set -euo pipefail
root="$(pwd)"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
venv="$build/python-venv"

# RESPITE_PYTHON: the new venv's interpreter; a CPython 3.12+ (e.g. pyenv's)
# with its own BUILD_ROOT builds and tests the abi3 (limited API) extension.
if [ ! -x "$venv/bin/python" ]; then
  "${RESPITE_PYTHON:-python3}" -m venv "$venv"
fi
# gunicorn: test_shared_gate.py serves a shared gate from four gunicorn workers;
# mypy: test_typing.py checks an app with `mypy --strict` (types-requests: the
# package itself, respite.requests included); httpx, requests: test_library_http.py;
# prometheus-client: test_metrics.py registers the collector and parses the text
# strictly; opentelemetry-sdk: test_metrics.py reads the observable instruments.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'pytest>=7' 'gunicorn>=22' 'mypy>=1.10' \
  'httpx>=0.24' 'requests>=2.28' types-requests 'prometheus-client>=0.20' 'opentelemetry-sdk>=1.20'
# The CMake build directory lives under the build root, so a second run
# only rebuilds what changed.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
  --config-settings=build-dir="$build/python-build" --config-settings=cmake.define.RESPITE_WERROR=ON ./bindings/python

# The HTTP tests run against the core's fault server (built by 10-core.sh;
# built here when missing).
fault_server="$build/release/tools/fault_server/respite-fault-server"
if [ ! -x "$fault_server" ]; then
  cmake -S . -B "$build/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build/release" -j2 --target respite-fault-server >/dev/null
fi
export RESPITE_FAULT_SERVER="$fault_server"

(cd bindings/python && "$venv/bin/python" -m pytest -q -p no:cacheprovider tests)

bash scripts/setup.d/conformance.sh >/dev/null
python3 conformance/run --lang c --lang python --require python --quiet

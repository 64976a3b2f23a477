#!/usr/bin/env bash
# Python (issue 15): builds the sdist (core sources inside) and, from that
# sdist in an empty directory, the wheel; repairs the wheel with auditwheel
# so it carries the libcurl/jansson it links; copies both into an empty
# directory outside the checkout; installs the wheel into one fresh venv and
# builds+installs the sdist in another; runs a small gate program in each
# with the checkout on no path and LD_LIBRARY_PATH empty.
set -euo pipefail
root="$(pwd)"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
bash scripts/setup.d/python-packaging.sh >/dev/null
tools="${RESPITE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/respite}/python-packaging"
export CMAKE_BUILD_PARALLEL_LEVEL=2
unset PYTHONPATH
# No SWIG from scripts/setup.d/swig.sh: the builds take it from PyPI, as a
# user's would.
export RESPITE_TOOLS="$build/python-package-no-tools"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# build makes the sdist, then the wheel from the unpacked sdist in a temp
# directory: the wheel build itself proves the sdist needs no checkout.
"$tools/bin/python" -m build --outdir "$work/dist" bindings/python >"$work/build.log" 2>&1 \
  || { tail -40 "$work/build.log"; exit 1; }
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --wheel-dir "$work/wheelhouse" "$work"/dist/*.whl >"$work/repair.log" 2>&1 \
  || { cat "$work/repair.log"; exit 1; }
wheel="$(ls "$work"/wheelhouse/*.whl)"
"$tools/bin/auditwheel" show "$wheel"

pkg="$work/pkg"
mkdir "$pkg"
cp "$wheel" "$work"/dist/*.tar.gz "$pkg/"
cat >"$pkg/gate_demo.py" <<'PY'
import sys
import respite

# The package, not the checkout, answers.
assert "site-packages" in respite.__file__, respite.__file__
gate = respite.Gate(failures_to_enter_recovery=3, failures_window_seconds=60,
                    recovery_seconds=30, name="demo")
for _ in range(3):
    gate.report("server_error", permit=gate.acquire())
try:
    with gate.attempt():
        sys.exit("the gate let a call through after 3 failures")
except respite.TemporarilyUnavailableError as err:
    assert 0 < err.retry_after <= 30, err.retry_after
    print(f"refused: {err} (retry_after={err.retry_after:.1f})")
PY

cd "$pkg"
# The wheel: no compiler, no SWIG, no -dev packages needed.
python3 -m venv wheel-venv
wheel-venv/bin/python -m pip install --quiet --disable-pip-version-check ./"$(basename "$wheel")"
LD_LIBRARY_PATH= wheel-venv/bin/python gate_demo.py
# libcurl and jansson resolve to the copies inside the wheel, not the host's.
linked="$(LD_LIBRARY_PATH= ldd wheel-venv/lib/python3*/site-packages/respite/_respite_swig*.so | grep -E 'libcurl|libjansson')"
echo "$linked"
if [ "$(grep -c 'respite_gate\.libs/' <<<"$linked")" -ne 2 ]; then
  echo "python package: the wheel does not carry libcurl and jansson" >&2
  exit 1
fi
# The sdist: built here, from what it carries.
python3 -m venv sdist-venv
sdist-venv/bin/python -m pip install --quiet --disable-pip-version-check ./respite_gate-*.tar.gz \
  >"$work/sdist-install.log" 2>&1 || { tail -40 "$work/sdist-install.log"; exit 1; }
LD_LIBRARY_PATH= sdist-venv/bin/python gate_demo.py

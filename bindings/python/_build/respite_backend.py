"""scikit-build-core, plus one step: build_sdist copies the repository's
core sources into vendor/ first, so the sdist builds anywhere (issue 15).
vendor/ exists only while the sdist is written; it is never in git."""
import shutil
from pathlib import Path

from scikit_build_core import build as _skbuild
from scikit_build_core.build import *  # noqa: F401,F403 (every other hook as is)

_HERE = Path(__file__).resolve().parent.parent  # bindings/python
_ROOT = _HERE.parent.parent  # the repository, when building from it
_VENDOR = _HERE / "vendor"
# What CMakeLists.txt reads from the repository (RESPITE_ROOT): whole
# folders, so a file the core's CMake starts to read is never left out.
_PARTS = ["core", "swig", "cmake"]


def build_sdist(sdist_directory, config_settings=None):
    if not (_ROOT / "core" / "CMakeLists.txt").exists():
        # Already an unpacked sdist: vendor/ came with it.
        return _skbuild.build_sdist(sdist_directory, config_settings)
    shutil.rmtree(_VENDOR, ignore_errors=True)
    try:
        for part in _PARTS:
            src, dst = _ROOT / part, _VENDOR / part
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(src, dst)
        return _skbuild.build_sdist(sdist_directory, config_settings)
    finally:
        shutil.rmtree(_VENDOR, ignore_errors=True)

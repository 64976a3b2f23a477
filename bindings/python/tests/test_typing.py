"""Types (issue 20 item 5): `mypy --strict` is clean on an app using every
public name, and rejects a misspelt or mistyped setting; __all__ is written
out and names every public name."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import respite
from respite.generated import errors, settings, structs

HERE = Path(__file__).resolve().parent / "typing_app"


def mypy(*args):
    # from a directory without the package's sources, so the installed package (py.typed) is what is checked
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, *args],
                          capture_output=True, text=True, cwd=HERE)


def test_all_is_explicit_and_complete():
    assert len(set(respite.__all__)) == len(respite.__all__)
    for name in respite.__all__:
        assert hasattr(respite, name), name
    for module in (errors, settings, structs):
        assert set(module.__all__) <= set(respite.__all__), module.__name__
    used = (HERE / "app.py").read_text()
    assert [name for name in respite.__all__ if name not in used] == []


def test_mypy_strict_is_clean_on_an_app_using_every_public_name():
    result = mypy("--strict", "app.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_rejects_mistakes():
    result = mypy("--strict", "typo.py")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = {int(line.split(":")[1]) for line in result.stdout.splitlines() if ": error:" in line}
    assert lines == {5, 6, 7, 8, 9}, result.stdout
    assert 'Unexpected keyword argument "failure_to_enter_recovery" for "Gate"; did you mean ' \
           '"failures_to_enter_recovery"?' in result.stdout


def test_the_package_itself_is_mypy_strict_clean():
    # package.ini: strict, less no-any-return (SWIG's module is untyped)
    result = mypy("--config-file", "package.ini", "-p", "respite")
    assert result.returncode == 0, result.stdout + result.stderr

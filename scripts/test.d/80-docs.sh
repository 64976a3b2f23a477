#!/usr/bin/env bash
# Docs that run (issue 21 item 3): every code block of README.md and
# docs/*.md runs (tools/doctest/run.py: each in a fresh directory, service
# URLs pointed at a local respite-fault-server, per language against what the
# earlier steps built: the test venv, the jar, the Node addon, the PHP
# extension, the core and the command), unless marked
# `<!-- not run: <reason> -->`; the runner's own tests first.
set -euo pipefail
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
python="$build/python-venv/bin/python"
if [ ! -x "$python" ]; then
  echo "80-docs: $python is missing: scripts/test.d/40-python.sh makes the test venv (and the binding in it)" >&2
  exit 1
fi
# markdown-it-py finds the blocks as a renderer does (fences in lists too).
"$python" -m pip install --quiet --disable-pip-version-check 'markdown-it-py>=3,<5'
"$python" -m unittest discover -s tools/doctest -p 'test_*.py'
"$python" tools/doctest/run.py --build "$build"

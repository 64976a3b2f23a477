#!/usr/bin/env python3
"""Writes every binding's generated files from the core's tables.

    python3 tools/gen/generate.py --tables build/release/tools/gen/respite_tables
    python3 tools/gen/generate.py --tables ... --check   # fails naming each file that differs

The tables come from respite_tables (the core's public API printed as JSON)
or from a saved copy (--json). Each language's files are written by its own
emitter, tools/gen/emit_<lang>.py, into directories that hold nothing else,
so a file no emitter writes any more (a status removed) is deleted too.
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
from typing import Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import emit_java  # noqa: E402
import emit_node  # noqa: E402
import emit_php  # noqa: E402
import emit_python  # noqa: E402
from tables import Tables, load  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Each emitter: the directory (relative to the repository) it owns, and
# emit(tables) -> {path inside that directory: text}.
EMITTERS = (emit_python, emit_java, emit_node, emit_php)


def render(tables: Tables) -> Dict[str, Dict[str, str]]:
    """{owned directory: {relative path: text}} for every emitter."""
    return {emitter.DIRECTORY: emitter.emit(tables) for emitter in EMITTERS}


def existing_files(directory: str) -> List[str]:
    if not os.path.isdir(directory):
        return []
    found = []
    for root, _dirs, files in os.walk(directory):
        for name in files:
            if name.endswith(".pyc") or "__pycache__" in root:
                continue
            found.append(os.path.relpath(os.path.join(root, name), directory))
    return sorted(found)


def write(outputs: Dict[str, Dict[str, str]], root: str) -> None:
    for directory, files in outputs.items():
        base = os.path.join(root, directory)
        for stale in set(existing_files(base)) - set(files):
            os.remove(os.path.join(base, stale))
        for path, text in files.items():
            target = os.path.join(base, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)


def read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def compare(directories: List[str], fresh_root: str, root: str) -> List[str]:
    """One problem per file of root's generated directories that differs
    from the freshly generated copy under fresh_root."""
    problems = []
    for directory in sorted(directories):
        fresh = set(existing_files(os.path.join(fresh_root, directory)))
        committed = set(existing_files(os.path.join(root, directory)))
        for path in sorted(fresh | committed):
            name = os.path.join(directory, path)
            if path not in fresh:
                problems.append(f"{name}: not generated any more (delete it)")
            elif path not in committed:
                problems.append(f"{name}: missing")
            else:
                new = read(os.path.join(fresh_root, directory, path))
                old = read(os.path.join(root, directory, path))
                if new != old:
                    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), f"{name} (committed)",
                                                f"{name} (from the core)", lineterm="", n=1)
                    problems.append(f"{name}: differs from the core's tables\n" + "\n".join(list(diff)[:40]))
    return problems


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--tables", help="the built respite_tables program (build/release/tools/gen/respite_tables)")
    source.add_argument("--json", help="a saved copy of its output")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail naming every generated file that differs from the core's tables")
    parser.add_argument("--root", default=REPO, help="the repository to write into or check (default: this one)")
    args = parser.parse_args(argv)

    outputs = render(load(program=args.tables, json_file=args.json))
    if not args.check:
        write(outputs, args.root)
        return 0
    with tempfile.TemporaryDirectory(prefix="respite-gen-") as scratch:
        write(outputs, scratch)
        problems = compare(list(outputs), scratch, args.root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} generated file(s) out of date: run python3 tools/gen/generate.py "
              f"--tables <build>/tools/gen/respite_tables and commit the result", file=sys.stderr)
        return 1
    print(f"generated files match the core's tables ({sum(len(f) for f in outputs.values())} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

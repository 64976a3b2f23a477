#!/usr/bin/env python3
"""The shared libraries export the public API and nothing else.

usage: test_exports.py INCLUDE_DIR INTERNAL_HEADER_DIR LIBRARY...

Every function declared in the public headers (INCLUDE_DIR/respite/*.h) must
carry RESPITE_API and be exported by one of the libraries; every exported
symbol must be such a function, or a respite_internal_* helper declared with
RESPITE_INTERNAL_API under INTERNAL_HEADER_DIR (the ABI between librespite
and librespite_http, which links it). A `static inline` function defined in
a header (fast_path_reader.h) is compiled into its caller: nothing to export.
Symbols are read with `nm -D --defined-only`.
"""
import pathlib
import re
import subprocess
import sys

# Instrumentation a sanitizer build adds to every shared object.
SANITIZER = re.compile(r"^_*(asan|odr_asan|tsan|ubsan|sancov)")


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    # preprocessor lines, with their continuations
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)


def without_inline_functions(text):
    """text without its `static inline` functions, bodies included."""
    out, pos = [], 0
    while (m := re.search(r"\bstatic\s+inline\b", text[pos:])) is not None:
        start = pos + m.start()
        brace = text.index("{", start)
        depth, end = 0, brace
        for end in range(brace, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        out.append(text[pos:start])
        pos = end + 1
    out.append(text[pos:])
    return " ".join(out)


def declarations(paths, marker):
    """(functions declared with marker, functions declared without it)."""
    marked, unmarked = set(), []
    for path in paths:
        for statement in re.split(r"[;{}]", without_inline_functions(strip(path.read_text()))):
            statement = " ".join(statement.split())
            if re.match(r"(typedef|struct|enum|union)\b", statement) or "extern \"C\"" in statement:
                continue
            m = re.match(r"([^(=]*?)\b(respite_\w+)\s*\(", statement)
            if not m:
                continue
            if re.search(r"\b%s\b" % marker, m.group(1)):
                marked.add(m.group(2))
            else:
                unmarked.append(f"{path.name}: {m.group(2)}")
    return marked, unmarked


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and not SANITIZER.match(fields[2]):
            names.add(fields[2].split("@")[0])
    return names


def main():
    include_dir, internal_dir, libraries = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    api, missing_marker = declarations(sorted((include_dir / "respite").glob("*.h")), "RESPITE_API")
    internal, _ = declarations(sorted(internal_dir.rglob("*.h")), "RESPITE_INTERNAL_API")
    problems = [f"declared without RESPITE_API: {name}" for name in missing_marker]
    problems += [f"RESPITE_INTERNAL_API on a name without respite_internal_: {name}"
                 for name in sorted(internal) if not name.startswith("respite_internal_")]
    everything = set()
    for library in libraries:
        names = exported(library)
        if not names & api:
            problems.append(f"{library}: exports no public function (is it the library meant?)")
        for name in sorted(names - api - internal):
            problems.append(f"{library}: exports {name}, which is not a public function")
        everything |= names
    problems += [f"public function exported by no library: {name}" for name in sorted(api - everything)]
    print(f"{len(api)} public functions, {len(internal)} internal ones shared between the libraries, "
          f"{len(everything)} symbols exported by {len(libraries)} libraries")
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

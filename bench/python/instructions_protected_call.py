#!/usr/bin/env python3
"""Instructions per protected call through respite's Python API, counted by
callgrind (valgrind), which a loaded machine does not change: each case runs
N times and 0 times in a process of its own under callgrind, and the
difference divided by N is one call's count; its overhead is that minus the
bare call of the same shape. Not part of scripts/bench.sh (valgrind makes
it slow); for comparing two builds of the binding side by side:

    python bench/python/instructions_protected_call.py [--calls N]

Hash randomisation is fixed (PYTHONHASHSEED=0) so that two runs of one
build count the same.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def loop(case, calls):
    """Runs one case `calls` times (in the process callgrind counts)."""
    import respite

    gate = respite.Gate()
    attempt, call = gate.attempt, gate.call

    def noop():
        return None

    def bare():
        noop()

    def with_attempt():
        with attempt():
            noop()

    cases = {"bare call noop()": noop, "bare def calling noop()": bare,
             "with gate.attempt()": with_attempt, "gate.call(noop)": lambda: call(noop),
             "@gate.protect": gate.protect(noop)}
    fn = cases[case]
    for _ in range(calls):
        fn()


# (case, the bare call of the same shape)
CASES = [("with gate.attempt()", "bare def calling noop()"), ("gate.call(noop)", "bare def calling noop()"),
         ("@gate.protect", "bare call noop()")]


def count(case, calls):
    """Instructions of a process that runs `case` `calls` times."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                        "--run", case, str(calls)], check=True, capture_output=True,
                       env={**os.environ, "PYTHONHASHSEED": "0"})
        with open(out, encoding="ascii") as f:
            return int(re.search(r"^summary: (\d+)", f.read(), re.M).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--run", nargs=2, metavar=("CASE", "CALLS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        loop(args.run[0], int(args.run[1]))
        return
    per_call = {}
    for case in sorted({c for pair in CASES for c in pair}):
        per_call[case] = (count(case, args.calls) - count(case, 0)) / args.calls
    print(f"instructions per call (callgrind, {args.calls} calls minus none, Python {sys.version.split()[0]})")
    for case, bare in CASES:
        print(f"  {case:22s} {per_call[case]:7.0f}   overhead {per_call[case] - per_call[bare]:5.0f} "
              f"above {bare} ({per_call[bare]:.0f})")


if __name__ == "__main__":
    main()

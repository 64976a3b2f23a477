#!/usr/bin/env python3
"""The cost of one protected call (check + call + report) through respite's
Python API, next to the same no-op protected by circuitbreaker and pybreaker
(and retried by tenacity), side by side in one process.

    pip install ./bindings/python -r bench/python/requirements.txt
    python bench/python/bench_protected_call.py [--calls N] [--repeats R]

Prints ns/call (best of R runs of N calls each) and each figure's ratio to
the fastest of the other libraries. The target: respite's protected call
(@gate.protect, like for like with the others' decorators) at most one third
of the fastest of them.
"""
import argparse
import platform
import sys
import timeit

import respite


def noop():
    return None


def cases():
    """(group, label, zero-argument callable doing one protected call)."""
    out = [("baseline", "bare call noop()", noop)]

    gate = respite.Gate()
    protected = gate.protect(noop)
    call = gate.call
    out.append(("breaker", "respite gate.call(noop)", lambda: call(noop)))
    out.append(("breaker", "respite @gate.protect", protected))

    attempt = gate.attempt

    def with_attempt():
        with attempt():
            noop()

    out.append(("breaker", "respite with gate.attempt()", with_attempt))

    try:
        import circuitbreaker

        out.append(("breaker", "circuitbreaker @circuit", circuitbreaker.circuit(failure_threshold=10)(noop)))
    except ImportError:
        print("circuitbreaker not installed: skipped", file=sys.stderr)
    try:
        import pybreaker

        breaker = pybreaker.CircuitBreaker(fail_max=10, reset_timeout=60)
        out.append(("breaker", "pybreaker breaker.call(noop)", lambda: breaker.call(noop)))
        out.append(("breaker", "pybreaker @breaker", breaker(noop)))
    except ImportError:
        print("pybreaker not installed: skipped", file=sys.stderr)

    out.append(("retry", "respite @retry(max_attempts=3)", respite.retry(max_attempts=3)(noop)))
    out.append(("retry", "respite @retry(gate=gate)", respite.retry(max_attempts=3, gate=gate)(noop)))
    try:
        import tenacity

        out.append(("retry", "tenacity @retry(stop_after_attempt(3))",
                    tenacity.retry(stop=tenacity.stop_after_attempt(3))(noop)))
    except ImportError:
        print("tenacity not installed: skipped", file=sys.stderr)
    return out


def best_ns(all_cases, calls, repeats):
    """Best ns/call of each case; the cases take turns in every round, so a
    burst of load from elsewhere on the machine hits one round, not one case."""
    best = [float("inf")] * len(all_cases)
    for _ in range(repeats):
        for i, (_group, _label, fn) in enumerate(all_cases):
            best[i] = min(best[i], timeit.timeit(fn, number=calls) / calls * 1e9)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    print(f"Python {platform.python_version()} on {platform.machine()}; best of {args.repeats} x {args.calls} calls")
    all_cases = cases()
    results = [(group, label, ns) for (group, label, _fn), ns in
               zip(all_cases, best_ns(all_cases, args.calls, args.repeats))]
    for group in ("baseline", "breaker", "retry"):
        rows = [r for r in results if r[0] == group]
        others = [ns for _, label, ns in rows if not label.startswith("respite")]
        fastest = min(others) if others and group != "baseline" else None
        print(f"\n{group}:")
        for _, label, ns in rows:
            ratio = f"{ns / fastest:6.2f}x fastest other" if fastest else ""
            print(f"  {label:42s} {ns:9.0f} ns/call  {ratio}")
    breakers = [ns for g, label, ns in results if g == "breaker" and not label.startswith("respite")]
    # Like for like: a decorated no-op, called directly, against the others' decorators.
    lean = next(ns for g, label, ns in results if label == "respite @gate.protect")
    if breakers:
        verdict = "met" if lean <= min(breakers) / 3 else "NOT met"
        print(f"\ntarget (respite @gate.protect <= 1/3 of the fastest other breaker): {lean:.0f} vs "
              f"{min(breakers) / 3:.0f} ns -> {verdict}")


if __name__ == "__main__":
    main()

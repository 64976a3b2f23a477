#!/usr/bin/env python3
"""The cost of one protected call (check + call + report) through respite's
Python API, next to the same no-op protected by purgatory, circuitbreaker
and pybreaker (and retried by tenacity), in one process, in paired rounds.

    pip install ./bindings/python -r bench/python/requirements.txt
    python bench/python/bench_protected_call.py [--calls N] [--rounds R]

Times are the thread's CPU time (time.thread_time), so other processes on
a shared machine do not inflate them (as bench_gate's in C). Every round
times every case once, in an order that rotates from round to
round, and the bare call in the same round; a case's overhead is its time
minus the bare call's. Per round, respite's overhead is divided by the
smallest overhead of the other breakers in that round; the figures are the
min / median / max of those per-round ratios. Target: at most 1/3 for
@gate.protect, gate.call and `with gate.attempt()`.

First, before any timing, the memory one breaker of each library holds:
the growth of the process's resident memory (Python and native) while
breakers are made and kept, until it has grown by at least 16 MB.

Lines starting with "result" and "memory" are what scripts/bench.sh
tabulates.
"""
import argparse
import gc
import os
import platform
import statistics
import sys
import time
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
    attempt = gate.attempt

    def with_attempt():
        with attempt():
            noop()

    out.append(("breaker", "respite @gate.protect", protected))
    out.append(("breaker", "respite gate.call(noop)", lambda: call(noop)))
    out.append(("breaker", "respite with gate.attempt()", with_attempt))

    import circuitbreaker
    import purgatory
    import pybreaker

    factory = purgatory.SyncCircuitBreakerFactory(default_threshold=10, default_ttl=60)
    out.append(("breaker", "purgatory @breaker", factory("bench")(noop)))
    purgatory_breaker = factory.get_breaker("bench-with")

    def with_purgatory():
        with purgatory_breaker:
            noop()

    out.append(("breaker", "purgatory with breaker", with_purgatory))
    out.append(("breaker", "circuitbreaker @circuit", circuitbreaker.circuit(failure_threshold=10)(noop)))
    breaker = pybreaker.CircuitBreaker(fail_max=10, reset_timeout=60)
    out.append(("breaker", "pybreaker @breaker", breaker(noop)))

    import tenacity

    out.append(("retry", "respite @retry(max_attempts=3)", respite.retry(max_attempts=3)(noop)))
    out.append(("retry", "tenacity @retry(stop_after_attempt(3))",
                tenacity.retry(stop=tenacity.stop_after_attempt(3))(noop)))
    return out, gate


PAGE = os.sysconf("SC_PAGE_SIZE")
GROWTH = 16 << 20


def resident():
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * PAGE


def bytes_per_object(make):
    """Resident bytes per object, made until the process grew by GROWTH
    (or 200,000 of them), all kept alive while measured."""
    gc.collect()
    before = resident()
    kept = []
    while len(kept) < 200_000:
        kept.extend(make(len(kept) + i) for i in range(500))
        if resident() - before >= GROWTH:
            break
    gc.collect()
    grown = resident() - before
    return grown / len(kept), len(kept)


def breakers():
    """(label, make one breaker with index i) for the memory figures."""
    import circuitbreaker
    import purgatory
    import pybreaker

    factory = purgatory.SyncCircuitBreakerFactory(default_threshold=10, default_ttl=60)
    return [
        ("respite Gate()", lambda i: respite.Gate()),
        ("purgatory breaker", lambda i: factory.get_breaker(f"b{i}")),
        ("circuitbreaker CircuitBreaker()", lambda i: circuitbreaker.CircuitBreaker(failure_threshold=10)),
        ("pybreaker CircuitBreaker()", lambda i: pybreaker.CircuitBreaker(fail_max=10, reset_timeout=60)),
    ]


def paired_rounds(all_cases, calls, rounds):
    """ns/call of every case in every round; the order rotates per round."""
    samples = [[] for _ in all_cases]
    for r in range(rounds):
        for k in range(len(all_cases)):
            i = (r + k) % len(all_cases)
            fn = all_cases[i][2]
            samples[i].append(timeit.timeit(fn, number=calls, timer=time.thread_time) / calls * 1e9)
    return samples


def spread(values):
    return min(values), statistics.median(values), max(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # Many short rounds: a round's ratio moves with the machine's load, and
    # the median of 21 moves less than the median of 9.
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()

    print("resident memory per breaker (made and kept until the process grew by 16 MB):")
    for label, make in breakers():
        per, count = bytes_per_object(make)
        print(f"  {label:34s} {per:9.0f} bytes ({count} made)")
        print(f"memory\tPython\t{label}\t{per:.0f}")
    print()
    all_cases, gate = cases()
    print(f"Python {platform.python_version()} on {platform.machine()}; {args.rounds} paired rounds of "
          f"{args.calls} calls, order rotating, thread CPU time")
    for group, label, fn in all_cases:  # warm-up
        timeit.timeit(fn, number=1000)
    samples = paired_rounds(all_cases, args.calls, args.rounds)
    labels = [label for _, label, _ in all_cases]
    bare = samples[labels.index("bare call noop()")]
    overhead = {label: [ns - b for ns, b in zip(samples[i], bare)] for i, label in enumerate(labels)}
    peers = [label for group, label, _ in all_cases if group == "breaker" and not label.startswith("respite")]
    best_peer = [min(overhead[p][r] for p in peers) for r in range(args.rounds)]
    tenacity_label = "tenacity @retry(stop_after_attempt(3))"

    print(f"\n{'case':42s} {'ns/call':>9s} {'overhead':>9s}   ratio to the fastest other breaker, per round")
    for group, label, _ in all_cases:
        ns = statistics.median(samples[labels.index(label)])
        over = statistics.median(overhead[label])
        if group == "breaker":
            lo, mid, hi = spread([o / p for o, p in zip(overhead[label], best_peer)])
            ratio = f"min {lo:5.2f}  median {mid:5.2f}  max {hi:5.2f}"
        elif group == "retry" and label != tenacity_label:
            lo, mid, hi = spread([o / t for o, t in zip(overhead[label], overhead[tenacity_label])])
            ratio = f"(to tenacity) min {lo:5.2f}  median {mid:5.2f}  max {hi:5.2f}"
        else:
            ratio = ""
        print(f"{label:42s} {ns:9.0f} {over:9.0f}   {ratio}")
    print("(medians of the rounds; the fastest other breaker is taken in each round)")

    for label in ("respite @gate.protect", "respite gate.call(noop)", "respite with gate.attempt()"):
        lo, mid, hi = spread([o / p for o, p in zip(overhead[label], best_peer)])
        verdict = "met" if mid <= 1 / 3 else "NOT met"
        print(f"result\tPython: {label[8:]} overhead <= 1/3 of the fastest other breaker's\t"
              f"{statistics.median(overhead[label]):.0f} ns vs {statistics.median(best_peer):.0f} ns: "
              f"{mid:.2f}x median (min {lo:.2f}, max {hi:.2f}) of {args.rounds} paired rounds\t{verdict}")
    stats = gate.stats()
    if stats.refused or stats.admitted < args.calls * args.rounds:
        print(f"respite gate did not admit every call: {stats}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""kill -9 of `respite deliver` at random points while it sends 10,000
events from a durable queue to a receiver that fails at random; restarted
each time until the queue is empty.

Asserts: every event accepted into the file reached the receiver at least
once (none lost), each with one stable id (so the receiver could
deduplicate), duplicates bounded by what the kills can cause (at most one
batch per kill), and D9 holds in the file after every kill. The
duplicates are counted and printed."""
import os
import random
import re
import subprocess
import sys
import time

from deliver_support import (WORKER_SETTINGS, Check, FaultServer, Received, arguments, balanced, queue_stats,
                             temp_dir, write_policy)

EVENTS = 10_000
BATCH = 10  # --max-entries-per-message in WORKER_SETTINGS
TIME_LIMIT = 240.0  # seconds for the whole kill-and-restart loop

respite, source_dir, fault_server = arguments()
check = Check()
seed = int(os.environ.get("RESPITE_CRASH_SEED", time.time_ns() % 1_000_000))
rng = random.Random(seed)
print(f"seed {seed} (RESPITE_CRASH_SEED={seed} repeats the kill times)", flush=True)

with temp_dir() as tmp:
    queue = os.path.join(tmp, "queue.db")
    policy = write_policy(tmp)
    payloads = [f"event-{n:05d}" for n in range(EVENTS)]
    fill = subprocess.run([respite, "send", "--queue", queue, "--policy", policy], input="\n".join(payloads) + "\n",
                          capture_output=True, text=True, timeout=120)
    check.that(fill.returncode == 0 and f"enqueued             {EVENTS}" in fill.stdout,
               f"respite send --queue enqueued {EVENTS} events: {fill.stdout}{fill.stderr}")

    # Fast answers, a fault in about a quarter of them (no hang: a send
    # ends within its timeout, well inside the lease).
    server = FaultServer(fault_server, f"random p=0.25 seed={seed} faults=500,503,429,reset,close delay=0.008")
    log_path = os.path.join(tmp, "deliver.log")
    kills = restarts = 0
    last_delivered = 0
    started = time.monotonic()
    finished = False
    try:
        with open(log_path, "w") as log:
            while time.monotonic() - started < TIME_LIMIT:
                worker = subprocess.Popen([respite, "deliver", "--queue", queue, "--url", server.url, "--policy",
                                           policy, "--until-empty"] + WORKER_SETTINGS,
                                          stdout=log, stderr=log)
                restarts += 1
                try:
                    code = worker.wait(timeout=rng.uniform(0.3, 1.5))
                    check.that(code == 0, f"respite deliver --until-empty exited {code}, expected 0")
                    finished = True
                    break
                except subprocess.TimeoutExpired:
                    worker.kill()  # SIGKILL: no drain, no goodbye
                    worker.wait()
                    kills += 1
                code, figures, output = queue_stats(respite, queue, policy)
                check.that(code == 0 and balanced(output), f"D9 holds in the file after kill {kills}:\n{output}")
                check.that(figures.get("accepted") == EVENTS,
                           f"the file still counts {EVENTS} accepted after kill {kills}:\n{output}")
                delivered = figures.get("delivered", -1)
                check.that(delivered >= last_delivered,
                           f"delivered never goes back ({last_delivered} then {delivered}) after kill {kills}")
                last_delivered = delivered
        elapsed = time.monotonic() - started
        check.that(finished, f"the queue emptied within {TIME_LIMIT:.0f}s ({kills} kills so far)")
        check.that(kills >= 3, f"the worker was killed mid-way at least 3 times (got {kills})")

        code, figures, output = queue_stats(respite, queue, policy)
        check.that(code == 0 and balanced(output), f"D9 holds at the end:\n{output}")
        for heading, want in [("accepted", EVENTS), ("delivered", EVENTS), ("pending", 0), ("in_flight", 0),
                              ("discarded", 0), ("retries_exhausted", 0), ("expired", 0),
                              ("dropped_capacity", 0)]:
            check.that(figures.get(heading) == want, f"{heading} is {want} at the end:\n{output}")

        received = Received(server.stats())
        missing = received.missing(payloads)
        check.that(not missing, f"every accepted event reached the receiver; {len(missing)} did not, "
                                f"e.g. {missing[:5]}")
        check.that(received.mismatched == 0,
                   f"every request's {WORKER_SETTINGS[1]} header names its events ({received.mismatched} do not)")
        check.that(received.ids_stable(), "every event kept one id across resends, and ids are unique")
        duplicates = received.duplicates()
        # A kill can catch at most one batch between the receiver's answer
        # and the settle that records it; so can a send that timed out on a
        # loaded machine after the receiver had it (S14).
        with open(log_path) as log:
            worker_lines = log.read()
        timeouts = len(re.findall(r"send failed: .*(?:timed out|Timeout)", worker_lines))
        openings = re.findall(r"^respite deliver: .*accepted so far, accounting (\w+)", worker_lines, re.MULTILINE)
        # (a worker killed very early may not have printed its first line)
        check.that(openings and set(openings) == {"balanced"},
                   f"every restarted worker found D9 balanced in the file ({openings.count('balanced')} of "
                   f"{len(openings)} opening lines, {restarts} starts)")
        check.that(duplicates <= (kills + timeouts) * BATCH,
                   f"duplicates ({duplicates}) are at most one batch per kill or timeout "
                   f"(({kills} + {timeouts}) x {BATCH})")
        print(f"{EVENTS} events, {kills} kills ({timeouts} sends timed out), {restarts} starts in {elapsed:.1f}s; "
              f"{received.requests} requests; "
              f"{duplicates} duplicate deliveries ({len(received.deliveries)} distinct events received)",
              flush=True)
    finally:
        server.stop()
    if check.failures:
        with open(log_path) as log:
            print("--- the workers' stderr (last 40 lines)")
            print("".join(log.readlines()[-40:]))
check.finish()

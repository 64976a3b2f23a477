#!/usr/bin/env python3
"""4 producer processes (`respite send --queue FILE`) enqueue 10,000 events
into one durable queue file while one `respite deliver` sends them to a
receiver that sometimes fails (the policy retries).

Asserts: D9 holds in every snapshot of the file taken while they all run;
every event reaches the receiver exactly once (no process died, so no
duplicate has an excuse) with a unique id; the file ends with accepted =
delivered = 10,000; SIGTERM stops the worker with exit 0 and its
accounting on stderr."""
import os
import re
import signal
import subprocess
import threading
import time

from deliver_support import (WORKER_SETTINGS, Check, FaultServer, Received, arguments, balanced, queue_stats,
                             temp_dir, wait_for, write_policy)

PRODUCERS = 4
EVENTS = 10_000
CHUNK = 50  # lines a producer is given at once, then a pause: they interleave with the worker

respite, source_dir, fault_server = arguments()
check = Check()

with temp_dir() as tmp:
    queue = os.path.join(tmp, "queue.db")
    policy = write_policy(tmp)
    server = FaultServer(fault_server, "random p=0.1 seed=3 faults=503,reset")
    worker_log = os.path.join(tmp, "deliver.log")
    with open(worker_log, "w") as log:
        # No process dies here: a send timing out on a loaded machine is the
        # one way to a duplicate (S14), so the timeout is long.
        worker = subprocess.Popen([respite, "deliver", "--queue", queue, "--url", server.url, "--policy", policy]
                                  + WORKER_SETTINGS + ["--timeout-seconds", "30", "--lease-seconds", "60"],
                                  stdout=log, stderr=log)
    try:
        payloads = [[f"p{p}-{n:05d}" for n in range(EVENTS // PRODUCERS)] for p in range(PRODUCERS)]
        producers = [subprocess.Popen([respite, "send", "--queue", queue, "--policy", policy], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for _ in range(PRODUCERS)]

        def feed(proc, lines):
            for start in range(0, len(lines), CHUNK):
                proc.stdin.write("\n".join(lines[start:start + CHUNK]) + "\n")
                proc.stdin.flush()
                time.sleep(0.05)
            proc.stdin.close()

        feeders = [threading.Thread(target=feed, args=(proc, lines)) for proc, lines in zip(producers, payloads)]
        for t in feeders:
            t.start()
        # D9 in snapshots taken while producers and the worker write.
        snapshots = 0
        while any(t.is_alive() for t in feeders):
            code, figures, output = queue_stats(respite, queue, policy)
            check.that(code == 0 and balanced(output), f"D9 holds while they run:\n{output}")
            snapshots += 1
            time.sleep(0.1)
        for t in feeders:
            t.join()
        accepted = 0  # what the producers say they enqueued; the rest of the checks hold it to that
        for p, proc in enumerate(producers):
            proc.wait(timeout=60)
            out, err = proc.stdout.read(), proc.stderr.read()
            enqueued = re.search(r"^enqueued +(\d+)", out, re.MULTILINE)
            accepted += int(enqueued.group(1)) if enqueued else 0
            check.that(proc.returncode == 0 and f"enqueued             {EVENTS // PRODUCERS}" in out,
                       f"producer {p} enqueued {EVENTS // PRODUCERS} and exited 0 ({proc.returncode}):\n{out}"
                       f"--- its stderr:\n{err}")

        def drained():
            code, figures, output = queue_stats(respite, queue, policy)
            return figures.get("accepted") == accepted and figures.get("pending") == 0 and figures.get("in_flight") == 0

        check.that(wait_for(drained, 120, step=0.2), "the worker emptied the queue within 120s")
        check.that(worker.poll() is None, "the worker is still running (it stops only when told)")
        worker.send_signal(signal.SIGTERM)
        code = worker.wait(timeout=30)
        with open(worker_log) as log:
            stderr = log.read()
        check.that(code == 0, f"SIGTERM: respite deliver exited {code}, expected 0")
        for line in ["stopping (SIGTERM)", f"accepted             {accepted}", f"delivered            {accepted}",
                     "accounting           balanced", f"delivered {accepted} in this run"]:
            check.that(line in stderr, f"the worker's stderr has '{line}'")

        code, figures, output = queue_stats(respite, queue, policy)
        check.that(code == 0 and balanced(output), f"D9 holds at the end:\n{output}")
        for heading, want in [("accepted", accepted), ("delivered", accepted), ("pending", 0), ("in_flight", 0),
                              ("discarded", 0), ("retries_exhausted", 0)]:
            check.that(figures.get(heading) == want, f"{heading} is {want} at the end:\n{output}")

        received = Received(server.stats())
        every = [p for lines in payloads for p in lines]
        missing = received.missing(every)
        check.that(len(missing) == EVENTS - accepted,
                   f"every accepted event reached the receiver; {len(missing)} of {EVENTS} did not "
                   f"({EVENTS - accepted} were refused), e.g. {missing[:5]}")
        check.that(received.duplicates() == 0, f"each exactly once ({received.duplicates()} duplicates)")
        check.that(received.mismatched == 0, "every request's ids header names its events")
        check.that(received.ids_stable(), "ids are unique")
        print(f"{PRODUCERS} producers x {EVENTS // PRODUCERS} events; {snapshots} snapshots of the file while "
              f"running, all balanced: {check.failures == 0}; {received.requests} requests", flush=True)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        server.stop()
    if check.failures:
        with open(worker_log) as log:
            print("--- the worker's stderr (last 40 lines)")
            print("".join(log.readlines()[-40:]))
check.finish()

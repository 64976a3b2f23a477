"""Shared by the durable-queue tests of `respite deliver` (test_deliver_*.py):
the fault server as a subprocess, a queue file's accounting read through
`respite deliver --stats`, and what the receiver got, by payload and id.

Each test is called as: test_x.py RESPITE SOURCE_DIR FAULT_SERVER."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

IDS_HEADER = "X-Respite-Ids"


class Check:
    """Counts failed checks; `finish` exits 1 when any failed."""

    def __init__(self):
        self.failures = 0

    def that(self, condition, what):
        if not condition:
            print(f"FAIL: {what}", flush=True)
            self.failures += 1
        return condition

    def finish(self):
        if self.failures:
            print(f"{self.failures} check(s) failed")
            sys.exit(1)
        print("all checks passed")


def arguments():
    if len(sys.argv) < 4:
        sys.exit("usage: test_x.py RESPITE SOURCE_DIR FAULT_SERVER")
    return sys.argv[1], sys.argv[2], sys.argv[3]


class FaultServer:
    """tools/fault_server as a subprocess on 127.0.0.1 (its stdin a pipe, so
    it cannot outlive the test)."""

    def __init__(self, program, script):
        self.proc = subprocess.Popen([program, "--exit-on-eof", "--script", script], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/ingest"

    def stats(self, bodies=True):
        address = f"http://127.0.0.1:{self.port}/__control/stats" + ("" if bodies else "?bodies=0")
        with urllib.request.urlopen(address, timeout=30) as answer:
            return json.load(answer)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def header(record, name):
    for key, value in record.get("headers", {}).items():
        if key.lower() == name.lower():
            return value
    return None


class Received:
    """What the receiver accepted (answered 2xx): deliveries per payload,
    the id each payload came with, and any request whose ids header does
    not match its body."""

    def __init__(self, stats):
        self.deliveries = {}  # payload -> times received in a 2xx answer
        self.ids = {}  # payload -> set of ids it came with
        self.mismatched = 0  # requests whose ids and events differ in number
        self.requests = stats["requests"]
        for record in stats["received"]:
            if not 200 <= record["status"] <= 299:
                continue
            events = record.get("body", "").split("\n")
            ids = (header(record, IDS_HEADER) or "").split(",")
            if len(ids) != len(events):
                self.mismatched += 1
                continue
            for event, event_id in zip(events, ids):
                self.deliveries[event] = self.deliveries.get(event, 0) + 1
                self.ids.setdefault(event, set()).add(event_id)

    def duplicates(self):
        return sum(n - 1 for n in self.deliveries.values())

    def missing(self, payloads):
        return [p for p in payloads if p not in self.deliveries]

    def ids_stable(self):
        """Every payload came with one id, and no two payloads share one."""
        seen = {}
        for payload, ids in self.ids.items():
            if len(ids) != 1:
                return False
            (event_id,) = ids
            if seen.setdefault(event_id, payload) != payload:
                return False
        return True


def queue_stats(respite, queue, policy):
    """The file's accounting through `respite deliver --stats`: (exit code,
    {heading: number}, output)."""
    proc = subprocess.run([respite, "deliver", "--queue", queue, "--policy", policy, "--stats"],
                          capture_output=True, text=True, timeout=60)
    figures = {}
    for line in proc.stdout.splitlines():
        match = re.match(r"^([a-z_]+) +(-?\d+)", line)
        if match:
            figures[match.group(1)] = int(match.group(2))
    return proc.returncode, figures, proc.stdout + proc.stderr


def balanced(output):
    return "accounting           balanced" in output


def write_policy(directory, retry_times=100, capacity=20000):
    """Retries every failure (a transport failure counts as 503): no event
    is given up while the receiver fails at random."""
    path = os.path.join(directory, "policy.json")
    with open(path, "w") as f:
        json.dump({"name": "deliver-test", "maximum_capacity": capacity, "retry_times": retry_times,
                   "error_handlers": [{"on": "any_error", "strategy": "retry"}]}, f)
    return path


def temp_dir():
    return tempfile.TemporaryDirectory(prefix="respite-deliver-")


def wait_for(condition, timeout, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


# Worker settings the tests share: a gate that opens after a burst of
# failures but pauses only briefly, short sends, a lease that ends soon
# after a crash (longer than a send, so a live worker's lease never ends
# under it).
WORKER_SETTINGS = ["--ids-header", IDS_HEADER, "--max-entries-per-message", "10", "--timeout-seconds", "1",
                   "--lease-seconds", "2", "--failures-to-enter-recovery", "10", "--failures-window-seconds", "1",
                   "--recovery-seconds", "0.2", "--recovery-multiplier", "1", "--max-recovery-seconds", "0.5",
                   "--close-timeout-seconds", "2", "--progress-seconds", "0"]

"""One shared gate (spec section 9) across worker processes: four
multiprocessing processes, and gunicorn with four sync workers serving
shared_gate_app. Each process opens its own handle on one file; the fault
server answers every request 503 a second late, so requests sent together
occupy different workers. Then a Sender's gate on a shared file, and a handle
used in a forked child."""
import json
import multiprocessing
import os
import re
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import respite
import shared_gate_app

WORKERS = 4
RECOVERY = shared_gate_app.SETTINGS["recovery_seconds"]


def check_three_facts(server, send):
    """send(n): the answers of n calls made at once by different workers."""
    # 1. Four failures, each in its own worker, open the gate for all of them.
    first = send(WORKERS)
    assert [(a["result"], a.get("status")) for a in first] == [("sent", 503)] * WORKERS, first
    assert len({a["pid"] for a in first}) >= 2, first
    assert "open" in [a["state"] for a in first], first
    assert server.requests() == WORKERS

    # 2. Every worker now refuses without a network call.
    refused = send(WORKERS)
    assert [(a["result"], a["state"]) for a in refused] == [("refused", "open")] * WORKERS, refused
    assert all(0 < a["retry_after"] <= RECOVERY for a in refused), refused
    assert server.requests() == WORKERS, "a refused call reached the server"

    # 3. After the pause, of four calls at once exactly one is the probe.
    time.sleep(max(a["retry_after"] for a in refused) + 0.2)
    after = send(WORKERS)
    assert sorted(a["result"] for a in after) == ["refused"] * (WORKERS - 1) + ["sent"], after
    assert server.requests() == WORKERS + 1, "more than one probe reached the server"
    assert len({a["pid"] for a in first + refused + after}) >= 2


@pytest.fixture
def late_503(server):
    server.script("503 delay=1")
    return server


def test_multiprocessing_workers_share_one_gate(late_503, tmp_path):
    context = multiprocessing.get_context("spawn")  # fresh processes: nothing inherited but the file's path
    answers = context.Queue()
    workers = []
    try:
        for _ in range(WORKERS):
            commands = context.Queue()
            process = context.Process(target=shared_gate_app.serve,
                                      args=(str(tmp_path / "gates"), late_503.url, commands, answers))
            process.start()
            workers.append((process, commands))

        def send(n):
            for _, commands in workers[:n]:
                commands.put("call")
            return [answers.get(timeout=30) for _ in range(n)]

        check_three_facts(late_503, send)
    finally:
        for process, commands in workers:
            commands.put(None)
        for process, _ in workers:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()


@pytest.fixture
def gunicorn(late_503, tmp_path):
    """gunicorn (4 sync workers) serving shared_gate_app on an ephemeral port; its URL."""
    log = tmp_path / "gunicorn.log"
    env = dict(os.environ, RESPITE_TEST_URL=late_503.url, RESPITE_TEST_SHARED_PATH=str(tmp_path / "gates"))
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", str(WORKERS), "--worker-class", "sync",
         "--bind", "127.0.0.1:0", "--chdir", str(Path(__file__).parent), "--error-logfile", str(log),
         "--log-level", "info", "shared_gate_app:app"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            text = log.read_text() if log.exists() else ""
            port = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", text)
            if port and text.count("Booting worker") >= WORKERS:
                break
            assert process.poll() is None and time.monotonic() < deadline, f"gunicorn did not start:\n{text}"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port.group(1)}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_gunicorn_workers_share_one_gate(late_503, gunicorn):
    def get(_):
        with urllib.request.urlopen(gunicorn, timeout=30) as answer:
            return json.loads(answer.read())

    def send(n):
        with ThreadPoolExecutor(n) as pool:
            return list(pool.map(get, range(n)))

    check_three_facts(late_503, send)


def test_a_senders_gate_is_shared_with_every_handle_on_its_file(server, tmp_path):
    server.script("down")
    shared = dict(name="collector", shared_path=str(tmp_path / "gates"), failures_to_enter_recovery=1)
    with respite.Gate(profile="usage_sharing", **shared) as watcher:  # as another process's handle would
        with respite.Sender(server.url, gate=shared, min_entries_per_message=1) as sender:
            sender.enqueue("one")
            deadline = time.monotonic() + 10
            while watcher.state() != "open":
                assert time.monotonic() < deadline, "the sender's failure did not open the shared gate"
                time.sleep(0.02)
            assert server.requests() >= 1


def _fail_twice(gate):
    gate.report("server_error")
    gate.report("server_error")


def test_a_handle_opened_before_a_fork_works_in_the_child(tmp_path):
    with respite.Gate(name="cloud", shared_path=str(tmp_path / "gates"), failures_to_enter_recovery=2) as gate:
        child = multiprocessing.get_context("fork").Process(target=_fail_twice, args=(gate,))  # the parent's handle
        child.start()
        child.join(timeout=30)
        assert child.exitcode == 0
        assert gate.state() == "open"

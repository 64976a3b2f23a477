"""respite.Sender against the fault server (spec section 5, S1-S13)."""
import collections
import json
import logging
import subprocess
import sys
import threading
import time

import pytest

import respite


def retry_policy(retry_times=100, capacity=1000):
    return respite.Policy.from_dict({"name": "retry-all", "maximum_capacity": capacity, "retry_times": retry_times,
                                     "error_handlers": [{"on": "any_error", "strategy": "retry"}]})


def wait_for(condition, timeout=5.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def delivered_events(server):
    """Every event of every request the server answered 2xx, in order."""
    out = []
    for record in server.stats()["received"]:
        if 200 <= record["status"] < 300 and record.get("body"):
            out.extend(record["body"].split("\n"))
    return out


def test_events_are_posted_in_batches_with_headers_and_gzip(server):
    with respite.Sender(url=server.url + "ingest", min_entries_per_message=3, max_entries_per_message=3,
                        gzip=True,
                        prefix="[", separator=",", suffix="]", headers={"X-Api-Key": "secret"}) as sender:
        for i in range(6):
            sender.enqueue(f'{{"n": {i}}}')
        sender.flush(2.0)
        stats = sender.stats()
    assert stats.delivered == 6 and stats.requests == 2 and stats.bytes_sent > 0
    received = server.stats()["received"]
    assert [r["body"] for r in received] == ['[{"n": 0},{"n": 1},{"n": 2}]', '[{"n": 3},{"n": 4},{"n": 5}]']
    assert all(r["gzip"] and r["method"] == "POST" and r["path"] == "/ingest" for r in received)
    assert received[0]["headers"]["X-Api-Key"] == "secret"
    assert received[0]["headers"]["Content-Type"] == "application/json"


def test_the_sender_pauses_probes_grows_the_pause_and_drains(server, caplog):
    server.script("down body=overloaded")
    sender = respite.Sender(url=server.url, name="usage", policy=retry_policy(), min_entries_per_message=1,
                            timeout_seconds=1.0, failures_to_enter_recovery=3, failures_window_seconds=60,
                            recovery_seconds=0.2, recovery_multiplier=2, max_recovery_seconds=0.4)
    seen = []
    with caplog.at_level(logging.INFO, logger="respite"):
        for i in range(5):
            sender.enqueue(f"event-{i}")
        wait_for(lambda: sender.stats().paused, what="the pause")
        assert sender.stats().requests == 3  # three failures opened the gate
        time.sleep(0.1)
        assert server.requests() == 3, "the server saw a request during the pause"

        # down: each probe fails and the pause grows 0.2 -> 0.4 -> 0.4 (the maximum)
        def pauses():
            seen.extend(sender.events())
            return [e.pause for e in seen if e.type in ("recovery_started", "recovery_extended")]
        wait_for(lambda: len(pauses()) >= 3, timeout=5, what="two failed probes")
        assert pauses()[:3] == [pytest.approx(0.2), pytest.approx(0.4), pytest.approx(0.4)]
        stats = sender.stats()
        assert stats.engine.probes == 2 and stats.requests == 3 + 2  # one request per probe, nothing else
        assert stats.delivered == 0 and stats.queue.pending + stats.queue.in_flight == 5

        # the service comes back: the next probe succeeds and the queue drains with no new event
        server.script("healthy")
        wait_for(lambda: sender.stats().delivered == 5, timeout=5, what="the drain")
        seen.extend(sender.events())
    assert [e for e in seen if e.type == "recovered"], [e.type for e in seen]
    assert delivered_events(server) == [f"event-{i}" for i in range(5)]
    assert sender.close() == 0

    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert "usage: recovery started: 3 failures within 60s; requests paused for 0.2s" in warnings, warnings
    assert "usage: recovery extended: the probe failed; requests paused for 0.4s" in warnings, warnings
    assert "usage: send failed: HTTP 503: overloaded" in warnings, warnings
    assert "usage: recovered: the service answered; requests resume" in infos, infos


def test_producers_never_block_while_the_server_hangs(server):
    server.script("hang")
    sender = respite.Sender(url=server.url, min_entries_per_message=1, timeout_seconds=30,
                            close_timeout_seconds=0.2, policy=retry_policy(capacity=5000))
    durations = []
    for i in range(2000):
        start = time.perf_counter()
        sender.enqueue(b"x" * 100)
        durations.append(time.perf_counter() - start)
    # a blocked enqueue would wait for the 30 s send timeout; the bounds leave
    # room for a loaded machine descheduling this thread
    assert sum(durations) < 5.0 and max(durations) < 0.5, (sum(durations), max(durations))
    assert sender.stats().accepted == 2000
    wait_for(lambda: sender.stats().queue.in_flight >= 1, what="a hanging send")
    assert sender.stats().delivered == 0
    start = time.perf_counter()
    unsent = sender.close()  # the hanging send is abandoned at the close deadline
    assert time.perf_counter() - start < 1.0
    final = sender.final_stats.queue
    assert unsent == final.pending and final.balanced and final.delivered == 0


def test_close_while_paused_returns_at_once_with_the_unsent_count(server, caplog):
    server.script("down")
    sender = respite.Sender(url=server.url, name="paused", policy=retry_policy(), min_entries_per_message=1,
                            failures_to_enter_recovery=2, recovery_seconds=30, close_timeout_seconds=5)
    for i in range(10):
        sender.enqueue(f"e{i}")
    wait_for(lambda: sender.stats().paused, what="the pause")
    for i in range(5):
        sender.enqueue(f"late{i}")  # queued during the pause (S1)
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        sender.flush(1.0)  # while paused: at once, events stay queued
    assert 25 < info.value.retry_after <= 30
    with caplog.at_level(logging.WARNING, logger="respite"):
        start = time.perf_counter()
        unsent = sender.close()
        elapsed = time.perf_counter() - start
    assert elapsed < 1.0, elapsed  # at once: not close_timeout_seconds (5 s), nor the 30 s pause
    assert unsent == 15
    assert sender.close() == 15  # a second close says the same
    assert sender.final_stats.engine.closed_while_paused
    assert any(r.getMessage() == "paused: closed with 15 events not sent" for r in caplog.records)
    with pytest.raises(respite.ClosedError) as closed:
        sender.enqueue("more")
    assert str(closed.value) == "sender is closed"
    for use in (sender.stats, lambda: sender.flush(1), lambda: sender.add_header("X-A", "b")):
        with pytest.raises(respite.ClosedError):
            use()


def test_close_while_healthy_delivers_everything(server):
    sender = respite.Sender(url=server.url)  # min_entries_per_message 50: close sends the rest too
    for i in range(120):
        sender.enqueue(f"event-{i}")
    assert sender.close() == 0
    final = sender.final_stats
    assert final.delivered == 120 and final.closed and final.balanced
    assert delivered_events(server) == [f"event-{i}" for i in range(120)]


def test_random_faults_keep_the_books_and_deliver_each_event_once(server):
    server.script("random p=0.3 seed=7 faults=500,503,429,reset,close")
    total = 1500
    sender = respite.Sender(url=server.url, policy=retry_policy(retry_times=3, capacity=5000),
                            min_entries_per_message=10, max_entries_per_message=25, timeout_seconds=1.0,
                            failures_to_enter_recovery=5, failures_window_seconds=1, recovery_seconds=0.02,
                            recovery_multiplier=2, max_recovery_seconds=0.1, close_timeout_seconds=5)
    for i in range(total):
        sender.enqueue(f"ev-{i}")
    deadline = time.monotonic() + 30
    while True:
        stats = sender.stats()
        if stats.queue.pending + stats.queue.in_flight == 0:
            break
        assert time.monotonic() < deadline, stats
        try:
            sender.flush(1.0)
        except respite.TemporarilyUnavailableError as paused:
            time.sleep(min(paused.retry_after, 0.1))
        except respite.TransportError:
            pass  # ran out of time; look again
    assert sender.close() == 0
    q = sender.final_stats.queue
    assert q.accepted == total
    assert q.accepted == (q.delivered + q.dropped_capacity + q.expired + q.retries_exhausted + q.discarded
                          + q.pending + q.in_flight)
    assert q.balanced and q.retried > 0 and q.delivered > total // 2
    arrived = collections.Counter(delivered_events(server))
    assert sum(arrived.values()) == q.delivered
    assert all(count == 1 for count in arrived.values()), arrived.most_common(3)
    statuses = server.stats(bodies=False)["statuses"]
    assert {"500", "503", "429"} <= set(statuses), statuses  # faults did happen


def test_settings_are_checked_and_routed_by_the_core(server):
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Sender(url="ftp://example.com/")
    assert info.value.setting == "url"
    assert str(info.value).startswith("url must be an http:// or https:// URL (got ")
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Sender(url=server.url, recovery_seconds=1e9)
    assert info.value.setting == "recovery_seconds"
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Sender(url=server.url, overflow="drop_everything")
    assert info.value.setting == "overflow"
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Sender(url=server.url, bogus=1)
    assert str(info.value).startswith("bogus is not a sender setting")
    with pytest.raises(respite.InvalidArgumentError):
        respite.Sender(url=server.url, headers={"Bad Name": "x"})
    with respite.Sender(url=server.url, overflow="drop_newest", recovery_seconds=5) as sender:
        assert sender.settings["recovery_seconds"] == 5 and sender.settings["overflow"] == "drop_newest"
        assert sender.settings["max_recovery_seconds"] == 300  # the usage_sharing profile underneath
        with pytest.raises(respite.InvalidArgumentError):
            sender.add_header("X-A", "one\ntwo")


def test_flush_that_runs_out_of_time_says_so(server):
    server.script("200 delay=0.5")
    with respite.Sender(url=server.url, timeout_seconds=2.0) as sender:
        sender.enqueue("slow")
        with pytest.raises(respite.TransportError) as info:
            sender.flush(0.1)
        assert str(info.value).startswith("flush ran out of time after 0.1s")
        sender.flush(2.0)
        assert sender.stats().delivered == 1


def test_close_and_flush_release_the_gil(server):
    from ticker import Ticker
    server.script("200 delay=0.3")
    sender = respite.Sender(url=server.url, min_entries_per_message=1)
    sender.enqueue("one")
    with Ticker() as ticker:
        start = time.perf_counter()
        sender.flush(2.0)
        sender.enqueue("two")
        assert sender.close() == 0
        end = time.perf_counter()
    assert end - start >= 0.5
    assert ticker.within(start, end) > 100


def test_a_logging_handler_may_call_back_into_the_sender(server):
    """No lock is held while an event is logged: a handler that reads the
    sender (its events, its figures) neither deadlocks the thread that logs
    nor a later close()."""
    server.script("down")
    sender = respite.Sender(url=server.url, policy=retry_policy(), min_entries_per_message=1,
                            failures_to_enter_recovery=1, recovery_seconds=60)
    seen = []

    class CallsBack(logging.Handler):
        def emit(self, record):
            seen.append((record.getMessage(), sender.events(), sender.stats().paused))

    handler = CallsBack(level=logging.WARNING)
    logger = logging.getLogger("respite")
    logger.addHandler(handler)
    try:
        sender.enqueue("a")
        wait_for(lambda: any(paused for _, _, paused in seen), what="a logged event")
        closing = threading.Thread(target=sender.close)
        closing.start()
        closing.join(5.0)
        assert not closing.is_alive(), "close() hung behind the handler"
    finally:
        logger.removeHandler(handler)
    assert sender.close() == 1
    assert any("recovery started" in message for message, _, _ in seen), seen


# A Sender made before os.fork(): the core's is the parent's (S15), so the
# child's first use makes one of its own, with an empty queue, which sends
# the child's events; the child's plain exit frees the Sender left unused
# there without touching the parent's; the parent's sender goes on with the
# events queued before the fork. In a program of its own: a forked pytest
# would run on.
FORK_PROGRAM = r"""
import json, os, sys, time, warnings
import respite
warnings.simplefilter("ignore", DeprecationWarning)  # fork() of a process with threads
url = sys.argv[1]
sender = respite.Sender(url, min_entries_per_message=50)
left_open = respite.Sender(url, min_entries_per_message=50)
sender.enqueue("before")
left_open.enqueue("left")
pid = os.fork()
if pid == 0:
    seen = {}
    for what, call in (("enqueue", lambda: sender.enqueue("child")), ("flush", lambda: sender.flush(1.0))):
        try:
            call()
            seen[what] = "returned"
        except respite.ClosedError as error:
            seen[what] = str(error)
    seen["close"] = sender.close()
    seen["closed"] = sender.final_stats.closed
    print(json.dumps(seen), flush=True)
    sys.exit(0)  # a plain exit: left_open is freed on the way out
deadline = time.monotonic() + 10
while os.waitpid(pid, os.WNOHANG) == (0, 0):
    if time.monotonic() > deadline:
        os.kill(pid, 9)
        sys.exit("the child did not exit")
    time.sleep(0.01)
sender.flush(5.0)
print(json.dumps({"delivered": sender.stats().delivered, "close": sender.close(), "left": left_open.close()}))
"""


def test_a_sender_made_before_fork_is_made_again_in_the_child(server):
    run = subprocess.run([sys.executable, "-c", FORK_PROGRAM, server.url], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    child, parent = (json.loads(line) for line in run.stdout.splitlines())
    assert child == {"enqueue": "returned", "flush": "returned", "close": 0, "closed": True}
    assert parent == {"delivered": 1, "close": 0, "left": 0}
    assert sorted(delivered_events(server)) == ["before", "child", "left"]


def test_a_body_cut_before_a_two_byte_character_is_logged_whole(server, caplog):
    # issue 14 item 3: 119 x 'x' + 'é' is 120 characters but 121 bytes; a cut
    # after 120 bytes split the 'é', and decoding the event killed the logging.
    body = "x" * 119 + "é"
    server.script(f"503 body={body}")
    sender = respite.Sender(url=server.url, policy=retry_policy(), min_entries_per_message=1,
                            failures_to_enter_recovery=100, close_timeout_seconds=1)
    with caplog.at_level(logging.WARNING, logger="respite"):
        sender.enqueue("event")
        failed = lambda: [r.getMessage() for r in caplog.records if r.getMessage().startswith("send failed")]
        wait_for(lambda: len(failed()) >= 2, what="two logged failures")  # the logging outlives the first
        assert failed()[0] == "send failed: HTTP 503: " + body
        events = sender.events()  # every event taken and decoded
    assert events and all(e.detail == body for e in events if e.type == "send_failed")
    sender.close()

"""respite.Client against the fault server (spec section 6, C1-C8)."""
import logging
import statistics
import threading
import time

import pytest

import respite
from ticker import Ticker


def test_a_healthy_call_returns_status_headers_and_body(server):
    server.script("201 body=created header=X-Request-Id:42")
    with respite.Client(timeout_seconds=2.0) as client:
        response = client.post(server.url + "items", body='{"a": 1}', headers={"X-Api-Key": "secret"})
    assert response.status == 201
    assert response.ok and response.outcome is respite.Outcome.SUCCESS
    assert response.body == b"created" and response.text == "created"
    assert response.headers["x-request-id"] == "42"  # case-insensitive
    assert "X-Request-Id" in response.headers and "X-Missing" not in response.headers
    assert response.headers.get("X-Missing", "none") == "none"
    assert response.attempts == 1 and 0 < response.elapsed < 2
    assert response.error == "" and response.retry_after == 0
    received = server.stats()["received"][0]
    assert received["method"] == "POST" and received["path"] == "/items"
    assert received["body"] == '{"a": 1}' and received["headers"]["X-Api-Key"] == "secret"


def test_ten_timeouts_open_the_gate_then_nothing_reaches_the_server(server, caplog):
    server.script("hang")
    gate = respite.Gate(failures_to_enter_recovery=10, failures_window_seconds=60, recovery_seconds=2.0,
                        name="slow-service")
    client = respite.Client(gate=gate, timeout_seconds=0.1)
    with caplog.at_level(logging.INFO, logger="respite"):
        for _ in range(10):
            response = client.get(server.url)
            assert response.status == 0 and response.outcome is respite.Outcome.TRANSPORT
            assert "timed out" in response.error.lower()
    assert gate.state() == "open"
    seen = server.requests()
    assert seen >= 10
    assert any(r.levelno == logging.WARNING and r.getMessage() == "slow-service: recovery started: 10 failures within 60s; requests paused for 2s"
               for r in caplog.records)

    durations = []
    for _ in range(25):
        start = time.perf_counter()
        with pytest.raises(respite.TemporarilyUnavailableError) as info:
            client.get(server.url)
        durations.append(time.perf_counter() - start)
        assert 0 < info.value.retry_after <= 2.0
        assert "temporarily restricted" in str(info.value)
    time.sleep(0.1)
    assert server.requests() == seen, "a refused call reached the server"
    assert statistics.median(durations) < 0.001, f"refused calls took {durations}"
    assert gate.stats().refused == 25


def test_one_visitors_404s_never_open_the_gate_but_ten_503s_do(server):
    gate = respite.Gate(failures_to_enter_recovery=10, failures_window_seconds=60, recovery_seconds=30)
    client = respite.Client(gate=gate, timeout_seconds=1.0)
    server.script("404")
    for _ in range(25):
        response = client.get(server.url + "missing")
        assert response.status == 404 and response.outcome is respite.Outcome.REQUEST_ERROR
    assert gate.state() == "closed" and gate.stats().counted_failures == 0

    server.script("503")
    for _ in range(10):
        assert client.get(server.url).outcome is respite.Outcome.SERVER_ERROR
    before = server.requests()
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        client.get(server.url)
    assert info.value.retry_after == pytest.approx(30, abs=0.5)
    assert server.requests() == before


def test_retries_follow_the_backoff_each_through_the_gate(server):
    server.script("2*503; healthy")
    gate = respite.Gate(failures_to_enter_recovery=10, recovery_seconds=30)
    backoff = respite.Backoff(max_attempts=4, initial_delay_seconds=0.01, max_delay_seconds=0.02)
    with respite.Client(gate=gate, backoff=backoff, timeout_seconds=1.0) as client:
        response = client.get(server.url)
    assert response.status == 200 and response.attempts == 3
    assert server.stats()["statuses"] == {"503": 2, "200": 1}
    assert gate.stats().admitted == 3 and gate.stats().reported == 3


def test_retry_after_of_a_503_is_read(server):
    server.script("503 retry_after=7")
    with respite.Client() as client:
        response = client.get(server.url)
    assert response.status == 503 and response.retry_after == 7.0
    assert response.headers["Retry-After"] == "7"


def test_a_body_that_cannot_be_used_is_reported_unusable(server):
    gate = respite.Gate(failures_to_enter_recovery=10, recovery_seconds=30)
    client = respite.Client(gate=gate)
    response = client.get(server.url)
    assert response.outcome is respite.Outcome.SUCCESS
    client.report_unusable(response)
    assert response.outcome is respite.Outcome.UNUSABLE and not response.ok
    assert gate.stats().counted_failures == 1
    client.report_unusable(response)  # a second report changes nothing
    assert gate.stats().counted_failures == 1

    server.script("404")
    missing = client.get(server.url)
    with pytest.raises(respite.InvalidArgumentError) as info:
        client.report_unusable(missing)
    assert str(info.value) == ("only a success can be reported unusable "
                               "(the response's outcome is request_error)")


def test_binary_bodies_round_trip(server):
    server.script("garbage")
    with respite.Client() as client:
        response = client.post(server.url, body=bytes(range(256)))
    assert response.status == 200 and len(response.body) == 64 and isinstance(response.body, bytes)
    assert server.stats()["received"][0]["body_hex"] == bytes(range(256)).hex()


def test_arguments_are_checked_by_the_core(server):
    client = respite.Client()
    with pytest.raises(respite.InvalidArgumentError) as info:
        client.request("GE T", server.url)
    assert str(info.value) == "method must be an HTTP method such as GET or POST (got 'GE T')"
    with pytest.raises(respite.InvalidArgumentError) as info:
        client.get("ftp://example.com/")
    assert str(info.value) == "url must be an http:// or https:// URL (got 'ftp://example.com/')"
    with pytest.raises(respite.InvalidArgumentError) as info:
        client.get(server.url, headers="X-Ok: 1\nno colon here")
    assert str(info.value) == 'headers must be "Name: value" lines separated by \\n (line 2 is "no colon here")'
    # a line break in a value cannot add a header of its own
    with pytest.raises(respite.InvalidArgumentError):
        client.get(server.url, headers={"X-A": "1\nX-Injected: yes"})
    assert server.requests() == 0
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Client(timeout_seconds=0)
    assert info.value.setting == "timeout_seconds"
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Client(url="http://x/")
    assert str(info.value).startswith("url is not a client setting")


def test_use_after_close_raises_closed(server):
    gate = respite.Gate()
    client = respite.Client(gate=gate)
    response = client.get(server.url)
    client.close()
    client.close()  # twice is fine
    with pytest.raises(respite.ClosedError) as info:
        client.get(server.url)
    assert str(info.value) == "client is closed"
    # the client kept the gate's handle alive; the gate still works
    gate.close()
    response.close()
    assert response.status == 200 and response.body == b"200\n"  # copied fields stay
    with pytest.raises(respite.ClosedError) as info:
        response.headers.get("Content-Type")
    assert str(info.value) == "response is closed"  # the core's words (E9), as in every language
    with pytest.raises(respite.ClosedError) as info:
        respite.Client().report_unusable(response)
    assert str(info.value) == "response is closed"


def test_a_closed_gate_or_backoff_is_refused_not_taken_as_none():
    for kind, given in (("gate", {"gate": respite.Gate()}), ("backoff", {"backoff": respite.Backoff()})):
        given[kind].close()
        with pytest.raises(respite.ClosedError) as info:
            respite.Client(**given)
        assert str(info.value) == f"{kind} is closed"


def test_a_client_is_shared_by_threads(server):
    server.script("200 delay=0.05")
    gate = respite.Gate(failures_to_enter_recovery=10, recovery_seconds=30)
    client = respite.Client(gate=gate, timeout_seconds=2.0)
    statuses = []

    def worker():
        for _ in range(5):
            statuses.append(client.get(server.url).status)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    assert statuses == [200] * 20
    # 20 calls of 50 ms each in 4 threads: one after another they take 1 s
    assert elapsed < 1.0, elapsed
    assert server.requests() == 20


def test_a_slow_request_releases_the_gil(server):
    server.script("200 delay=0.3")
    client = respite.Client(timeout_seconds=2.0)
    with Ticker() as ticker:
        start = time.perf_counter()
        assert client.get(server.url).status == 200
        end = time.perf_counter()
    assert end - start >= 0.29
    # about 0.3 s / 1 ms of ticks if the GIL is free; none if it were held
    assert ticker.within(start, end) > 50


def test_a_timing_out_request_releases_the_gil(server):
    server.script("hang")
    client = respite.Client(timeout_seconds=0.3)
    with Ticker() as ticker:
        start = time.perf_counter()
        assert client.get(server.url).outcome is respite.Outcome.TRANSPORT
        end = time.perf_counter()
    assert ticker.within(start, end) > 50


def test_python_i_releases_the_gil_in_every_http_call_that_waits():
    """The HTTP calls that wait must be %thread in swig/python.i."""
    from conftest import _REPO
    text = (_REPO / "swig/python.i").read_text()
    released = {line.split()[1].rstrip(";") for line in text.splitlines() if line.startswith("%thread ")}
    waiting = {"respite_client_request", "respite_client_report_unusable", "respite_client_new",
               "respite_client_free", "respite_sender_new", "respite_sender_free", "respite_sender_enqueue",
               "respite_sender_flush", "respite_sender_close", "respite_sender_stats_get",
               "respite_sender_next_event", "respite_sender_add_header"}
    assert "%nothread;" in text and waiting <= released, waiting - released


def test_the_client_holds_its_gate_and_backoff_in_the_core(server, caplog):
    gate = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=30, name="held")
    backoff = respite.Backoff(max_attempts=2, initial_delay_seconds=0.01, max_delay_seconds=0.01)
    client = respite.Client(gate=gate, backoff=backoff)
    gate.close()
    backoff.close()  # the caller's references only
    server.script("503")
    with caplog.at_level(logging.WARNING, logger="respite"):
        response = client.get(server.url)
    assert response.status == 503 and response.attempts == 2
    assert [r.getMessage() for r in caplog.records] == [
        "held: recovery started: 2 failures within 100s; requests paused for 30s"]
    with pytest.raises(respite.TemporarilyUnavailableError):
        client.get(server.url)
    client.close()


def test_a_cancelled_request_ends_within_100ms_and_counts_nothing(server):
    server.script("hang")
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=30)
    backoff = respite.Backoff(max_attempts=3, initial_delay_seconds=5, max_delay_seconds=5)
    client = respite.Client(gate=gate, backoff=backoff, timeout_seconds=10)
    token = respite.CancelToken()
    timer = threading.Timer(0.2, token.cancel)
    timer.start()
    start = time.perf_counter()
    with pytest.raises(respite.CancelledError, match="cancelled"):
        client.get(server.url, cancel=token)
    took = time.perf_counter() - start
    assert 0.19 < took < 0.2 + 0.5, took  # C10: within 100 ms of the cancel (margin for a loaded machine)
    assert token.cancelled
    assert gate.state() == "closed" and gate.stats().counted_failures == 0  # G19: released, not counted

    # once cancelled it stays so: the next call ends before the gate is asked or the server reached
    server.reset()
    admitted = gate.stats().admitted
    with pytest.raises(respite.CancelledError):
        client.post(server.url, body="x", cancel=token)
    assert server.requests() == 0 and gate.stats().admitted == admitted

    with pytest.raises(TypeError, match="CancelToken"):
        client.get(server.url, cancel="soon")
    assert client.get(server.url, cancel=respite.CancelToken()).status == 200
    closed = respite.CancelToken()
    closed.close()
    with pytest.raises(respite.ClosedError, match="cancel token is closed"):
        client.get(server.url, cancel=closed)  # not a call nothing can cancel
    with pytest.raises(respite.ClosedError, match="cancel token is closed"):
        closed.cancel()

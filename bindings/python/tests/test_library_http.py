"""Issue 21: the HTTP libraries users already have through a gate (and a
back-off), against the fault server: respite.httpx (sync and async
transports) and respite.requests (a Session adapter), each case for all three."""
import asyncio
import socket
import sys
import time

import httpx
import pytest
import requests

import respite
from respite.httpx import AsyncGateTransport, GateTransport
from respite.requests import GateAdapter


def _httpx(gate, backoff):
    client = httpx.Client(transport=GateTransport(gate, backoff=backoff), timeout=5)
    return lambda url: client.get(url).status_code


def _httpx_async(gate, backoff):
    async def get(url):
        async with httpx.AsyncClient(transport=AsyncGateTransport(gate, backoff=backoff), timeout=5) as client:
            return (await client.get(url)).status_code

    return lambda url: asyncio.run(get(url))


def _requests(gate, backoff):
    session = requests.Session()
    session.mount("http://", GateAdapter(gate, backoff=backoff))
    return lambda url: session.get(url, timeout=5).status_code


# The library exceptions for a refused connection, by flavour.
_CONNECT_ERRORS = {_httpx: httpx.ConnectError, _httpx_async: httpx.ConnectError, _requests: requests.ConnectionError}


@pytest.fixture(params=[_httpx, _httpx_async, _requests], ids=["httpx", "httpx-async", "requests"])
def flavour(request):
    return request.param


@pytest.fixture
def client(flavour):
    """client(gate, backoff=None) -> get(url) -> the status, through that library."""
    return lambda gate, backoff=None: flavour(gate, backoff)


def three_failures():
    return respite.Gate(failures_to_enter_recovery=3, failures_window_seconds=10, recovery_seconds=60)


@pytest.fixture
def refused_url():
    """A local port nobody listens on: connecting is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def test_three_503s_open_the_gate_and_the_next_request_never_reaches_the_server(server, client):
    server.script("down")
    gate = three_failures()
    get = client(gate)
    assert [get(server.url) for _ in range(3)] == [503, 503, 503]
    assert gate.state() == "open"
    with pytest.raises(respite.TemporarilyUnavailableError) as refused:
        get(server.url)
    assert 59 < refused.value.retry_after <= 60
    assert server.requests() == 3, "the refused request sent nothing"
    assert gate.stats().counted_failures == 3 and gate.stats().refused == 1


def test_a_404_never_counts(server, client):
    server.script("404")
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=60)
    get = client(gate)
    assert [get(server.url) for _ in range(5)] == [404] * 5
    assert gate.state() == "closed"
    assert gate.stats().counted_failures == 0 and gate.stats().reported == 5


def test_a_429_with_retry_after_7_pauses_7_seconds(server, client):
    server.script("429 retry_after=7")
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=1, max_recovery_seconds=60)
    get = client(gate)
    assert get(server.url) == 429
    with pytest.raises(respite.TemporarilyUnavailableError) as refused:
        get(server.url)
    assert 6.5 < refused.value.retry_after <= 7, "the hint lengthened the 1 s pause (G15)"
    assert server.requests() == 1


def test_retry_after_on_another_status_is_not_a_hint(server, client):
    # C6: only 429 and 503 answers carry a hint
    server.script("500 retry_after=7")
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=1, max_recovery_seconds=60)
    assert client(gate)(server.url) == 500
    assert 0.5 < gate.retry_after() <= 1


def test_a_refused_connection_counts_as_transport(client, flavour, refused_url):
    gate = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=60)
    get = client(gate)
    for _ in range(2):
        with pytest.raises(_CONNECT_ERRORS[flavour]):
            get(refused_url)
    assert gate.state() == "open"
    assert gate.stats().counted_failures == 2
    with pytest.raises(respite.TemporarilyUnavailableError):
        get(refused_url)


def test_the_backoff_retries_failures_through_the_gate(server, client):
    server.script("2*503; 200")
    gate = respite.Gate(failures_to_enter_recovery=5, recovery_seconds=60)
    backoff = respite.Backoff(max_attempts=4, initial_delay_seconds=0.01)
    assert client(gate, backoff)(server.url) == 200
    assert server.requests() == 3
    assert gate.stats().admitted == 3 and gate.stats().counted_failures == 2


def test_the_backoff_gives_up_with_the_last_answer(server, client):
    server.script("down")
    gate = respite.Gate(failures_to_enter_recovery=5, recovery_seconds=60)
    backoff = respite.Backoff(max_attempts=3, initial_delay_seconds=0.01)
    assert client(gate, backoff)(server.url) == 503
    assert server.requests() == 3


def test_the_backoff_waits_at_least_the_retry_after(server, client):
    server.script("429 retry_after=0.3; 200")
    gate = respite.Gate(failures_to_enter_recovery=5, recovery_seconds=60)
    backoff = respite.Backoff(max_attempts=2, initial_delay_seconds=0.01)
    started = time.monotonic()
    assert client(gate, backoff)(server.url) == 200
    assert time.monotonic() - started >= 0.3, "B7: the hint raised the 0.01 s delay"


def test_the_backoff_does_not_retry_a_404(server, client):
    server.script("404")
    backoff = respite.Backoff(max_attempts=3, initial_delay_seconds=0.01)
    assert client(three_failures(), backoff)(server.url) == 404
    assert server.requests() == 1


def test_the_backoff_stops_when_the_gate_opens(server, client):
    server.script("down")
    gate = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=60)
    backoff = respite.Backoff(max_attempts=5, initial_delay_seconds=0.01)
    with pytest.raises(respite.TemporarilyUnavailableError):
        client(gate, backoff)(server.url)
    assert server.requests() == 2, "B12: asked before every attempt"


def test_the_backoff_honours_max_elapsed_seconds_and_the_testing_switch(server, client):
    # B16, B17: waits of 1 s not waited; the third would start past 2.5 s, so 3 requests, then the last answer
    server.script("down")
    gate = respite.Gate(failures_to_enter_recovery=10, recovery_seconds=60)
    backoff = respite.Backoff(max_attempts=10, initial_delay_seconds=1, multiplier=1, max_elapsed_seconds=2.5)
    started = time.monotonic()
    with respite.testing.immediate_retries():
        assert client(gate, backoff)(server.url) == 503
    assert time.monotonic() - started < 2
    assert server.requests() == 3


def test_the_backoff_retries_a_refused_connection_then_raises_it(client, flavour, refused_url):
    gate = respite.Gate(failures_to_enter_recovery=5, recovery_seconds=60)
    backoff = respite.Backoff(max_attempts=3, initial_delay_seconds=0.01)
    with pytest.raises(_CONNECT_ERRORS[flavour]):
        client(gate, backoff)(refused_url)
    assert gate.stats().admitted == 3 and gate.stats().counted_failures == 3


def test_a_streamed_body_is_sent_again_on_a_retry(server):
    server.script("503; 200")
    gate = three_failures()
    backoff = respite.Backoff(max_attempts=2, initial_delay_seconds=0.01)
    session = requests.Session()
    session.mount("http://", GateAdapter(gate, backoff=backoff))
    assert session.post(server.url, data=iter([b"one ", b"two"]), timeout=5).status_code == 200
    with httpx.Client(transport=GateTransport(gate, backoff=backoff)) as client:
        server.script("503; 200")
        assert client.post(server.url, content=iter([b"three ", b"four"])).status_code == 200
    bodies = [r["body"] for r in server.stats()["received"]]
    assert bodies == ["one two", "one two", "three four", "three four"]


def test_the_callers_own_error_does_not_count():
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=60)
    with httpx.Client(transport=GateTransport(gate)) as client:
        with pytest.raises(httpx.UnsupportedProtocol):
            client.get("gopher://127.0.0.1/")
    assert gate.state() == "closed"
    assert gate.stats().reported == 1 and gate.stats().counted_failures == 0


def test_importing_respite_imports_no_http_library():
    import subprocess
    code = "import respite, sys; print('httpx' in sys.modules, 'requests' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_a_cancelled_async_request_reports_nothing(server):
    # G10: the call did not end (as a cancelled gate.call_async); a probe would time out
    server.script("hang for=5")
    gate = three_failures()

    async def cancelled():
        async with httpx.AsyncClient(transport=AsyncGateTransport(gate), timeout=10) as client:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.get(server.url), 0.3)

    asyncio.run(cancelled())
    assert gate.stats().admitted == 1 and gate.stats().reported == 0

"""What counts as the service's failure (issue 20 item 1): by default only
errors the binding can tell are the transport's or the service's; the
caller's own exception is re-raised and reported as request_error (not
counted); failure_on and status_of override."""
import pytest

import respite
from respite import Outcome


class HttpError(Exception):
    def __init__(self, status):
        super().__init__(status)
        self.status_code = status


def test_callers_own_exception_does_not_open_the_gate():
    # Before: a KeyError in the caller's code opened the gate after 3 calls.
    gate = respite.Gate(failures_to_enter_recovery=3)

    @gate.protect
    def lookup(d):
        return d["missing"]

    for _ in range(5):
        with pytest.raises(KeyError):
            lookup({})
    stats = gate.stats()
    assert stats.reported == 5 and stats.counted_failures == 0 and gate.state() == "closed"
    for _ in range(2):
        with pytest.raises(KeyError), gate.attempt():
            raise KeyError("x")
    assert gate.report_exception(ValueError()) == Outcome.REQUEST_ERROR
    assert gate.stats().counted_failures == 0


def test_service_errors_count_by_default():
    gate = respite.Gate(failures_to_enter_recovery=100)
    for exc in (ConnectionResetError(), TimeoutError(), OSError("dns"), HttpError(503),
                respite.TransportError("x")):
        with pytest.raises(type(exc)):
            gate.call(lambda: (_ for _ in ()).throw(exc))
    assert gate.stats().counted_failures == 5
    assert respite.is_service_failure(HttpError(404))  # the service answered: request_error, not counted
    assert not respite.is_service_failure(KeyError())


def test_failure_on_types_and_predicate_override():
    class ServiceDown(Exception):
        pass

    gate = respite.Gate(failures_to_enter_recovery=100, failure_on=(ServiceDown, KeyError))
    for exc in (ServiceDown(), KeyError(), ConnectionError()):
        with pytest.raises(type(exc)):
            gate.call(lambda: (_ for _ in ()).throw(exc))
    assert gate.stats().counted_failures == 2  # ConnectionError is not listed

    by_outcome = respite.Gate(failures_to_enter_recovery=100,
                              failure_on=lambda e: "throttled" if isinstance(e, ServiceDown) else False)
    with pytest.raises(ServiceDown):
        by_outcome.call(lambda: (_ for _ in ()).throw(ServiceDown()))
    assert by_outcome.stats().counted_failures == 1
    with pytest.raises(TypeError):
        respite.Gate(failure_on="KeyError")
    with pytest.raises(TypeError):
        respite.Gate(failure_on=(KeyError, "ValueError"))
    with pytest.raises(TypeError):
        respite.Gate(failure_on=int)
    nothing = respite.Gate(failures_to_enter_recovery=1, failure_on=())
    with pytest.raises(ConnectionError):
        nothing.call(lambda: (_ for _ in ()).throw(ConnectionError()))
    assert nothing.stats().counted_failures == 0


def test_status_of_counts_returned_5xx_on_the_gate():
    class Response:
        def __init__(self, status):
            self.status_code = status

    gate = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=60, status_of=lambda r: r.status_code)
    fetch = gate.protect(lambda status: Response(status))
    assert fetch(200).status_code == 200 and fetch(404).status_code == 404
    assert gate.stats().counted_failures == 0
    fetch(503)
    fetch(502)
    assert gate.state() == "open"
    with pytest.raises(respite.TemporarilyUnavailableError):
        fetch(200)


def test_retry_reraises_the_callers_own_error_at_once():
    gate = respite.Gate()
    calls = []

    @respite.retry(gate=gate, sleep=lambda s: None)
    def broken():
        calls.append(1)
        raise KeyError("bug")

    with pytest.raises(KeyError):
        broken()
    assert calls == [1] and gate.stats().reported == 1 and gate.stats().counted_failures == 0


def test_retry_failure_on():
    class Flaky(Exception):
        pass

    calls = []

    def fn():
        calls.append(1)
        raise Flaky()

    with pytest.raises(respite.TransportError) as info:
        respite.retry_call(fn, failure_on=Flaky, max_attempts=3, sleep=lambda s: None)
    assert len(calls) == 3 and isinstance(info.value.__cause__, Flaky)
    with pytest.raises(Flaky):
        respite.retry_call(fn, failure_on=lambda e: False, sleep=lambda s: None)
    assert len(calls) == 4


def test_http_libraries_transport_errors_count_without_importing_them():
    # httpx.ConnectError and aiohttp.ClientConnectorError are not OSErrors
    def library_class(module, name, base=Exception):
        return type(name, (base,), {"__module__": module})

    httpx_transport = library_class("httpx._exceptions", "TransportError")
    httpx_connect = library_class("httpx._exceptions", "ConnectError", httpx_transport)
    aiohttp_connection = library_class("aiohttp.client_exceptions", "ClientConnectionError")
    elsewhere = library_class("mylib", "TransportError")
    assert respite.is_service_failure(httpx_connect())
    assert respite.is_service_failure(aiohttp_connection())
    assert not respite.is_service_failure(elsewhere())
    assert not respite.is_service_failure(library_class("httpx._exceptions", "InvalidURL")())

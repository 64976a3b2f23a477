import logging

import pytest

import respite
from respite import Outcome


def trip(gate, at=0.0):
    for i in range(3):
        gate.report(Outcome.SERVER_ERROR, now=at + i)


def test_trips_at_threshold_and_recovers(gate):
    gate.report("transport", now=0.0)
    gate.report("server_error", now=1.0)
    assert gate.acquire(now=2.0) > 0
    gate.report("throttled", now=2.0)
    assert gate.state(now=3.0) == "open"
    decision = gate.check(now=3.0)
    assert not decision.allowed and decision.retry_after == pytest.approx(59.0)
    assert gate.retry_after(now=12.0) == pytest.approx(50.0)
    permit = gate.acquire(now=62.0)  # the probe
    assert gate.state(now=62.0) == "probing"
    gate.report(permit=permit, now=62.5)
    assert gate.state(now=63.0) == "closed"
    assert [e.type for e in gate.events()] == ["recovery_started", "probing", "recovered"]


def test_request_errors_do_not_count(gate):
    for t in range(10):
        gate.report_status(404, now=float(t))
    assert gate.state(now=10.0) == "closed"
    assert gate.report_status(503, now=11.0) is Outcome.SERVER_ERROR
    assert gate.stats().counted_failures == 1


def test_profiles_set_defaults():
    g = respite.Gate(profile="usage_sharing")
    assert g.settings["recovery_seconds"] == 2.0
    assert g.settings["recovery_multiplier"] == 2.0
    g2 = respite.Gate(profile="usage_sharing", recovery_seconds=5)
    assert g2.settings["recovery_seconds"] == 5.0 and g2.settings["max_recovery_seconds"] == 300.0
    assert respite.Gate().settings["recovery_seconds"] == 60.0


def test_attempt_success_and_status(gate):
    with gate.attempt(now=0.0):
        pass
    with gate.attempt(now=1.0) as call:
        call.set_status(404)
    with gate.attempt(now=2.0) as call:
        call.set_status(503)
    with gate.attempt(now=3.0) as call:
        call.set_status(200, body_usable=False)
    stats = gate.stats()
    assert stats.admitted == 4 and stats.reported == 4 and stats.counted_failures == 2


def test_attempt_exception_is_reported_and_propagates(gate):
    class HttpError(Exception):
        def __init__(self, status):
            super().__init__(f"HTTP {status}")
            self.status_code = status

    with pytest.raises(ConnectionError):
        with gate.attempt(now=0.0):
            raise ConnectionError("refused")  # transport
    with pytest.raises(HttpError):
        with gate.attempt(now=1.0):
            raise HttpError(400)  # request_error: not counted
    assert gate.stats().counted_failures == 1
    with pytest.raises(HttpError):
        with gate.attempt(now=2.0):
            raise HttpError(502)
    with pytest.raises(TimeoutError):
        with gate.attempt(now=2.0):
            raise TimeoutError()
    with pytest.raises(respite.TemporarilyUnavailableError):
        gate.acquire(now=2.5)
    ran = []
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        with gate.attempt(now=3.0):
            ran.append(1)
    assert not ran  # refused: the block does not run
    assert info.value.retry_after == pytest.approx(59.0)


def test_exception_may_carry_outcome_and_retry_after():
    class Throttled(Exception):
        outcome = "throttled"
        retry_after = 120.0

    g = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=10, max_recovery_seconds=300)
    with pytest.raises(Throttled):
        with g.attempt(now=0.0):
            raise Throttled()
    assert g.retry_after(now=0.0) == pytest.approx(120.0)  # G15: the hint lengthens the pause


def test_keyboard_interrupt_is_not_reported(gate):
    with pytest.raises(KeyboardInterrupt):
        with gate.attempt(now=0.0):
            raise KeyboardInterrupt
    assert gate.stats().reported == 0


def test_call_and_protect(gate):
    assert gate.call(lambda a, b=1: a + b, 2, b=3) == 5

    @gate.protect
    def fetch(x):
        """docs"""
        if x < 0:
            raise TimeoutError("slow")
        return x * 2

    assert fetch(4) == 8
    assert fetch.__name__ == "fetch" and fetch.__doc__ == "docs"
    for _ in range(3):
        with pytest.raises(TimeoutError):
            fetch(-1)
    calls = []
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        gate.call(calls.append, 1)
    assert calls == [] and 0 < info.value.retry_after <= 60.0
    stats = gate.stats()
    assert stats.admitted == 5 and stats.reported == 5 and stats.counted_failures == 3 and stats.trips == 1


def test_events_are_logged(caplog):
    caplog.set_level(logging.INFO, logger="respite")
    gate = respite.Gate(failures_to_enter_recovery=3, failures_window_seconds=10, recovery_seconds=60, name="billing")
    trip(gate)
    permit = gate.acquire(now=70.0)
    gate.report(permit=permit, now=70.5)
    records = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "respite"]
    assert records[0][0] == logging.WARNING
    assert records[0][1] == "billing: recovery started: 3 failures within 10s; requests paused for 60s"
    assert (logging.INFO, "billing: recovery period ended: the next request is a probe") in records
    assert (logging.INFO, "billing: recovered: the service answered; requests resume") in records
    assert caplog.records[0].respite_event.type == "recovery_started"


def test_a_longer_pause_is_a_warning(caplog):
    caplog.set_level(logging.INFO, logger="respite")
    g = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=10, recovery_multiplier=2)
    g.report("transport", now=0.0)
    permit = g.acquire(now=10.0)
    g.report("transport", permit=permit, now=10.5)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["recovery started: 1 failure within 100s; requests paused for 10s",
                        "recovery extended: the probe failed; requests paused for 20s"]
    assert [e.message for e in g.events()] == [
        "recovery started: 1 failure within 100s; requests paused for 10s",
        "recovery period ended: the next request is a probe",
        "recovery extended: the probe failed; requests paused for 20s"]


def test_a_recover_never_pause_logs_until_a_reset(caplog):
    caplog.set_level(logging.INFO, logger="respite")
    g = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=5, recover_never=True, name="ledger")
    g.report("transport", now=0.0)
    g.report("transport", now=1.0)
    g.reset(now=2.0)
    records = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "respite"]
    assert records == [(logging.WARNING, "ledger: recovery started: 2 failures within 100s; requests paused until a reset"),
                       (logging.INFO, "ledger: gate reset: requests resume")]


def test_reset(gate):
    trip(gate)
    gate.reset(now=5.0)
    assert gate.state(now=5.0) == "closed"
    assert gate.events()[-1].type == "reset"


def test_late_outcomes_are_ignored(gate):
    permits = [gate.acquire(now=0.0) for _ in range(5)]
    for p in permits[:3]:
        gate.report("transport", permit=p, now=1.0)
    for p in permits[3:]:
        gate.report("transport", permit=p, now=2.0)  # from the old generation
    assert gate.stats().late == 2
    assert gate.retry_after(now=2.0) == pytest.approx(59.0)

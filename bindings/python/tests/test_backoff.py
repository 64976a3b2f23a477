import time

import pytest

import respite
from respite import respite_swig as raw


def test_schedule_without_jitter():
    b = respite.Backoff(max_attempts=5, initial_delay_seconds=0.5, multiplier=2, max_delay_seconds=3)
    assert b.delays() == [0.5, 1.0, 2.0, 3.0]
    assert b.max_attempts == 5


def test_invalid_backoff_setting_message_is_the_cores():
    settings = raw.respite_settings_new("backoff")
    try:
        with pytest.raises(respite.InvalidSettingError) as raw_info:
            raw.respite_settings_set_text(settings, "jitter", "some")
    finally:
        raw.respite_settings_free(settings)
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Backoff(jitter="some")
    assert str(raw_info.value) == str(info.value)
    assert info.value.setting == raw_info.value.setting == "jitter"


def test_seeded_jitter_is_repeatable():
    a = respite.Backoff(jitter="full", seed=42, max_attempts=6)
    b = respite.Backoff(jitter="full", seed=42, max_attempts=6)
    assert a.delays(sequence=3) == b.delays(sequence=3)
    assert all(0 <= d < 30 for d in a.delays())


def test_retry_on_and_next():
    b = respite.Backoff(retry_on=["transport", 503], max_attempts=3)
    assert b.retries_on("transport") and b.retries_on("server_error", 503)
    assert not b.retries_on("server_error", 500)
    assert b.next(0, 1, "transport") == 0.5
    assert b.next(0, 3, "transport") is None  # attempts used up
    assert b.next(0, 1, "success") is None


def test_retry_decorator_retries_then_succeeds():
    slept = []
    attempts = []

    @respite.retry(max_attempts=4, initial_delay_seconds=0.25, sleep=slept.append)
    def flaky(x):
        attempts.append(x)
        if len(attempts) < 3:
            raise ConnectionError("reset")
        return x + 1

    assert flaky(1) == 2
    assert attempts == [1, 1, 1] and slept == [0.25, 0.5]


def test_retry_gives_up_with_the_cores_message():
    slept = []
    with pytest.raises(respite.TransportError) as info:
        respite.retry_call(lambda: (_ for _ in ()).throw(TimeoutError()), max_attempts=3, sleep=slept.append)
    assert len(slept) == 2
    assert str(info.value) == "the call failed after 3 attempts: last outcome transport"
    assert isinstance(info.value.__cause__, TimeoutError)
    assert info.value.attempts == 3 and info.value.last_outcome == "transport"


def test_request_errors_are_not_retried():
    class BadRequest(Exception):
        status_code = 400

    calls = []

    def fn():
        calls.append(1)
        raise BadRequest()

    with pytest.raises(respite.TransportError) as info:
        respite.retry_call(fn, sleep=lambda s: None)
    assert calls == [1]
    assert str(info.value) == "the call failed with request_error (status 400), which retry_on does not retry"
    assert isinstance(info.value.__cause__, BadRequest)


def test_retry_consults_the_gate_before_every_attempt():
    gate = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=60)
    calls = []

    def fn():
        calls.append(1)
        raise ConnectionError()

    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        respite.retry_call(fn, gate=gate, max_attempts=5, sleep=lambda s: None)
    assert calls == [1, 1]  # the third attempt was refused by the gate
    assert info.value.retry_after > 0
    assert info.value.attempts == 2 and info.value.last_outcome == "transport"
    assert gate.stats().reported == 2


def test_status_of_a_returned_value():
    answers = iter([503, 503, 200])
    slept = []
    result = respite.retry_call(lambda: next(answers), status_of=lambda status: status, sleep=slept.append)
    assert result == 200 and len(slept) == 2
    with pytest.raises(respite.TransportError) as info:
        respite.retry_call(lambda: 503, status_of=lambda status: status, sleep=slept.append)
    assert str(info.value) == "the call failed after 3 attempts: last outcome server_error (status 503)"
    assert info.value.result == 503 and info.value.__cause__ is None  # B20: the last returned value, carried
    with pytest.raises(respite.TransportError) as raised:
        respite.retry_call(lambda: (_ for _ in ()).throw(ConnectionError("reset")), sleep=slept.append)
    assert raised.value.result is None and isinstance(raised.value.__cause__, ConnectionError)


def test_max_elapsed_seconds_gives_up_before_a_wait_past_the_limit():
    # B16: waits of 1 s against a limit of 2.5 s: attempts at 0, 1 and 2 s, not at 3 s
    slept = []
    calls = []

    def fn():
        calls.append(1)
        raise ConnectionError("reset")

    with pytest.raises(respite.TransportError) as info:
        respite.retry_call(fn, max_attempts=10, initial_delay_seconds=1, multiplier=1, max_elapsed_seconds=2.5,
                           sleep=slept.append)
    # the sleeps were not real, so elapsed time is only the calls' own: every wait fits
    assert len(calls) == 10 and slept == [1.0] * 9
    with pytest.raises(respite.TransportError) as info:
        with respite.testing.immediate_retries():
            respite.retry_call(fn, max_attempts=10, initial_delay_seconds=1, multiplier=1, max_elapsed_seconds=2.5)
    assert str(info.value) == ("the call failed after 3 attempts: the next would start past max_elapsed_seconds "
                               "(2.5); last outcome transport")
    assert info.value.attempts == 3
    with pytest.raises(respite.InvalidSettingError) as bad:
        respite.Backoff(max_elapsed_seconds=-1)
    assert str(bad.value) == "max_elapsed_seconds must be a number from 0 to 86400 (got -1)"


def test_max_elapsed_seconds_with_real_waits():
    calls = []

    def fn():
        calls.append(1)
        raise ConnectionError("reset")

    with pytest.raises(respite.TransportError) as info:
        respite.retry_call(fn, max_attempts=10, initial_delay_seconds=0.03, multiplier=1, max_elapsed_seconds=0.05)
    assert len(calls) == 2  # 0.03 <= 0.05 < 0.03 + 0.03
    assert "max_elapsed_seconds (0.05)" in str(info.value)


def test_immediate_retries_make_five_attempts_with_one_second_delays_fast():
    # B17: same attempt count and delays, no waits
    calls = []
    seen = []

    @respite.retry(max_attempts=5, initial_delay_seconds=1, multiplier=1, before_sleep=seen.append)
    def fn():
        calls.append(1)
        raise ConnectionError("reset")

    started = time.monotonic()
    with respite.testing.immediate_retries():
        with pytest.raises(respite.TransportError) as info:
            fn()
    assert time.monotonic() - started < 1.0  # none of the 1 s delays waited
    assert len(calls) == 5 and [event.delay for event in seen] == [1.0] * 4
    assert str(info.value) == "the call failed after 5 attempts: last outcome transport"
    # restored on exit (the core's switch is off again)
    assert raw.respite_testing_immediate_retries() == 0
    with respite.testing.immediate_retries():
        with respite.testing.immediate_retries(False):
            assert raw.respite_testing_immediate_retries() == 0
        assert raw.respite_testing_immediate_retries() == 1


def test_before_sleep_sees_each_failure_before_its_wait():
    # B19: attempt, delay, outcome, status, and the exception or the returned value
    events = []
    slept = []

    class Unavailable(Exception):
        status_code = 503
        retry_after = 2.0

    answers = iter([Unavailable(), 429, 200])

    def fn():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    result = respite.retry_call(fn, max_attempts=4, initial_delay_seconds=0.5, status_of=lambda r: r,
                                before_sleep=events.append, sleep=slept.append)
    assert result == 200
    assert [(e.attempt, e.delay, e.outcome, e.status) for e in events] == [(1, 2.0, "server_error", 503),
                                                                          (2, 1.0, "throttled", 429)]
    assert isinstance(events[0].exception, Unavailable) and events[0].result is None
    assert events[1].exception is None and events[1].result == 429
    assert slept == [2.0, 1.0]


def test_an_error_from_before_sleep_ends_the_call():
    calls = []
    slept = []

    class Stop(Exception):
        pass

    def hook(event):
        raise Stop(f"no retry after attempt {event.attempt}")

    def fn():
        calls.append(1)
        raise ConnectionError("reset")

    with pytest.raises(Stop, match="no retry after attempt 1"):
        respite.retry_call(fn, before_sleep=hook, sleep=slept.append)
    assert calls == [1] and slept == []
    with pytest.raises(TypeError, match="before_sleep must be a function"):
        respite.retry_call(fn, before_sleep=3)


def test_the_callers_own_error_is_not_retried_even_when_retry_on_lists_request_error():
    # B18: reported as request_error (not counted), re-raised unchanged, no retry
    gate = respite.Gate(failures_to_enter_recovery=1)
    calls = []
    events = []

    def fn():
        calls.append(1)
        raise KeyError("mine")

    with pytest.raises(KeyError):
        respite.retry_call(fn, gate=gate, retry_on="transport,request_error", before_sleep=events.append,
                           sleep=lambda s: None)
    assert calls == [1] and events == []
    stats = gate.stats()
    assert stats.reported == 1 and stats.counted_failures == 0 and gate.check().allowed

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

"""`with gate.attempt()` is C (ext/attempt.c): what the C path decides,
checked against the Python Attempt it replaced, step by step."""
import asyncio
import contextlib
import gc
import logging
import random
import sys

import pytest

import respite
from respite import Outcome
from respite._classify import REQUEST_ERROR
from respite._outcome import classify, outcome_code


class ReferenceAttempt:
    """The Python Attempt that ext/attempt.c replaced, kept as the reference."""

    def __init__(self, gate, now):
        self.gate, self.now, self.permit = gate, now, 0
        self._code = self._retry_after = None

    def set_status(self, status, *, body_usable=True, retry_after=None):
        self._set(classify(status, body_usable=body_usable).code, retry_after)

    def set_outcome(self, outcome, *, retry_after=None):
        self._set(outcome_code(outcome), retry_after)

    def _set(self, code, retry_after):
        self._code = code
        if retry_after is not None:
            self._retry_after = retry_after

    def __enter__(self):
        self.permit = self.gate.acquire(self.now)
        return self

    def __exit__(self, exc_type, exc, tb):
        code, hint = self._code, self._retry_after
        if exc is not None and not isinstance(exc, Exception):
            return
        if code is None and exc is not None:
            code, _status, exc_hint = self.gate._classifier.exception(exc)
            code = REQUEST_ERROR if code is None else code
            hint = hint if hint is not None else exc_hint
        self.gate._report(self.gate._own, self.permit, Outcome.SUCCESS.code if code is None else code, hint, self.now)


class HttpError(Exception):
    def __init__(self, status, retry_after=None):
        super().__init__(f"HTTP {status}")
        self.status_code = status
        if retry_after is not None:
            self.retry_after = retry_after


def block(action, call):
    """What one scripted block does inside the attempt."""
    kind, arg = action
    if kind == "status":
        call.set_status(arg)
    elif kind == "outcome":
        call.set_outcome(arg, retry_after=7.0)
    elif kind == "raise":
        raise arg
    elif kind == "status+raise":
        call.set_status(503, retry_after=3.0)
        raise ValueError("after the status")


ACTIONS = [("ok", None), ("status", 200), ("status", 404), ("status", 503), ("status", 429),
           ("outcome", "transport"), ("outcome", Outcome.UNUSABLE), ("raise", ConnectionResetError()),
           ("raise", TimeoutError()), ("raise", KeyError("x")), ("raise", HttpError(502, retry_after=30.0)),
           ("raise", HttpError(400)), ("raise", KeyboardInterrupt()), ("raise", asyncio.CancelledError()),
           ("status+raise", None)]


def run(gate, make, now, action):
    """(what happened, the gate's stats and state) after one scripted attempt."""
    try:
        with make(gate, now) as call:
            block(action, call)
        happened = "returned"
    except respite.TemporarilyUnavailableError as refusal:
        happened = f"refused {refusal.retry_after!r}"
    except BaseException as exc:  # the block's exception, propagated
        assert exc is action[1] or action[0] == "status+raise"
        happened = f"raised {type(exc).__name__}"
    return happened, gate.stats(), gate.state(now=now)


@pytest.mark.parametrize("seed", range(6))
def test_replay_against_the_python_attempt(seed):
    rng = random.Random(seed)
    settings = dict(failures_to_enter_recovery=2, failures_window_seconds=30, recovery_seconds=5, probes=1,
                    max_recovery_seconds=40, count_all_failures=seed % 2 == 1)
    c_gate, ref_gate = respite.Gate(**settings), respite.Gate(**settings)
    now = 0.0
    for step in range(300):
        now += rng.choice((0.0, 0.5, 1.0, 6.0))
        action = rng.choice(ACTIONS)
        got = run(c_gate, lambda g, t: g.attempt(t), now, action)
        want = run(ref_gate, ReferenceAttempt, now, action)
        assert got == want, (seed, step, action)
        assert [e.type for e in c_gate.events()] == [e.type for e in ref_gate.events()]


def test_the_core_clock_path_admits_and_reports_success():
    gate = respite.Gate()
    attempt = gate.attempt()
    assert isinstance(attempt, respite.Attempt) and attempt.permit == 0 and attempt.now is None
    with attempt as entered:
        assert entered is attempt and attempt.permit > 0
    stats = gate.stats()
    assert stats.admitted == 1 and stats.reported == 1 and stats.counted_failures == 0


def test_nested_attempts_have_their_own_permits():
    gate = respite.Gate()
    with gate.attempt() as outer:
        with gate.attempt() as inner:
            inner.set_status(503)
        assert inner.permit > 0 and outer.permit > 0
    stats = gate.stats()
    assert stats.admitted == 2 and stats.reported == 2 and stats.counted_failures == 1


def test_an_attempt_entered_again_asks_and_reports_again():
    gate = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=60)
    attempt = gate.attempt(now=0.0)
    for _ in range(2):
        with attempt:
            attempt.set_status(503)  # stays set: both report server_error
    with pytest.raises(respite.TemporarilyUnavailableError):
        with attempt:
            pytest.fail("the block ran on an open gate")
    stats = gate.stats()
    assert stats.admitted == 2 and stats.reported == 2 and stats.refused == 1 and stats.trips == 1


def test_refusal_logs_the_gates_events_on_entering(caplog):
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=60, name="billing")
    with caplog.at_level(logging.INFO, logger="respite"):
        with pytest.raises(ConnectionResetError):
            with gate.attempt(now=0.0):
                raise ConnectionResetError()
        assert any("billing" in r.getMessage() for r in caplog.records)  # logged on the way out
        caplog.clear()
        with pytest.raises(respite.TemporarilyUnavailableError) as info:
            with gate.attempt(now=1.0):
                pytest.fail("the block ran on an open gate")
    assert info.value.retry_after == pytest.approx(59.0)


def test_a_closed_gate_raises_closed_on_entering_and_reports_nothing():
    gate = respite.Gate()
    attempt = gate.attempt()
    gate.close()
    ran = []
    with pytest.raises(respite.ClosedError):
        with attempt:
            ran.append(1)
    assert ran == []


def test_the_exception_leaves_the_block_unchanged():
    gate = respite.Gate()
    error = HttpError(503)
    with pytest.raises(HttpError) as info:
        with gate.attempt():
            raise error
    assert info.value is error and info.value.__traceback__ is not None
    assert gate.stats().counted_failures == 1


def test_a_classifier_that_raises_wins_over_the_blocks_exception():
    def judge(exc):
        raise RuntimeError("the classifier failed")

    gate = respite.Gate(failure_on=judge)
    with pytest.raises(RuntimeError, match="the classifier failed") as info:
        with gate.attempt():
            raise KeyError("x")
    assert isinstance(info.value.__context__, KeyError)
    assert gate.stats().reported == 0


def test_a_predicate_may_name_the_outcome():
    gate = respite.Gate(failure_on=lambda exc: "throttled" if isinstance(exc, KeyError) else None)
    with pytest.raises(KeyError):
        with gate.attempt():
            raise KeyError("x")
    with pytest.raises(ValueError):
        with gate.attempt():
            raise ValueError()
    stats = gate.stats()
    assert stats.reported == 2 and stats.counted_failures == 1


def test_the_steps_called_by_hand_and_through_exit_stack():
    gate = respite.Gate(failures_to_enter_recovery=1)
    attempt = gate.attempt()
    assert attempt.__enter__() is attempt and attempt.permit > 0
    assert attempt.__exit__(None, None, None) is None
    with contextlib.ExitStack() as stack:  # calls type(cm).__enter__(cm) and type(cm).__exit__(cm, ...)
        stack.enter_context(gate.attempt()).set_status(503)
    assert gate.stats().reported == 2 and gate.state() == "open"
    with pytest.raises(TypeError):
        attempt.__exit__(None, None)
    with pytest.raises(TypeError):
        respite.Attempt.__enter__(gate)
    with pytest.raises(TypeError):
        respite.Attempt.__exit__(attempt)
    assert gate.stats().reported == 2


def test_bad_arguments_are_errors_not_crashes():
    gate = respite.Gate()
    with pytest.raises(TypeError):
        gate.attempt(1.0, 2.0)
    with pytest.raises(TypeError):
        gate.attempt(when=1.0)
    with pytest.raises(TypeError):
        with gate.attempt("soon"):
            pass
    with pytest.raises(respite.InvalidTimeError):
        with gate.attempt(float("nan")):
            pass
    attempt = gate.attempt()
    with pytest.raises(TypeError):
        attempt.__exit__(None, None)
    with pytest.raises(TypeError):
        with attempt:
            attempt._code = "server_error"  # a code is the core's number
    with pytest.raises(AttributeError):
        del attempt.gate
        attempt.__enter__()
    assert gate.stats().admitted == 1  # the attempt whose code was bad was admitted, not reported


def test_a_gate_subclass_and_a_direct_attempt_take_the_same_path():
    class Named(respite.Gate):
        pass

    gate = Named(failures_to_enter_recovery=1)
    with pytest.raises(OSError):
        with respite.Attempt(gate, now=0.0):
            raise OSError("down")
    assert gate.state(now=1.0) == "open"


def test_async_with_attempt_in_c():
    gate = respite.Gate(failures_to_enter_recovery=1)

    async def main():
        async with gate.attempt() as call:
            call.set_status(503)
        with pytest.raises(respite.TemporarilyUnavailableError):
            async with gate.attempt():
                pass

    asyncio.run(main())
    assert gate.stats().trips == 1


def test_attempts_hold_no_references_once_done():
    gate = respite.Gate()
    gc.collect()
    before = sys.getrefcount(gate)
    for i in range(1000):
        with gate.attempt(float(i)) as call:
            call.set_status(200, retry_after=1.0)
        try:
            with gate.attempt():
                raise KeyError(i)
        except KeyError:
            pass
    del call  # the last attempt, which refers to its gate
    assert sys.getrefcount(gate) == before

"""Spec K6: the gate's closed path decided in the binding (ext/fast_path.h:
a closed admit and a closed, confirmed success counted in the handle's own
block) gives, step by step, the same permits, statistics and events as the
same gate driven through the core alone, while another handle (an engine's
thread on the same handle, or a second handle on a shared file gate) trips
and resets the gate between an admit and its report. A build without the
fast path (free-threaded) replays the same, with every step the core's."""
import random
import sysconfig
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import respite
from respite import Outcome
from respite import _respite_swig as _c

OUTCOMES = [Outcome.SUCCESS, Outcome.SUCCESS, Outcome.SUCCESS, Outcome.SERVER_ERROR, Outcome.REQUEST_ERROR]
SETTINGS = dict(failures_to_enter_recovery=3, failures_window_seconds=10, recovery_seconds=1, recovery_multiplier=2,
                max_recovery_seconds=8, probe_timeout_seconds=2, jitter=0.5, seed=7)


FAST = bool(_c._fast_path)  # this build decides the closed path itself


def test_every_build_with_a_gil_has_the_fast_path():
    """The full-API and the abi3 (limited API) builds alike; only a
    free-threaded one leaves the closed path to the core."""
    assert FAST == (not sysconfig.get_config_var("Py_GIL_DISABLED"))


def fast_counts(gate):
    """What the fast path decided for this gate's handle: (admitted, reported);
    (0, 0) in a build without it, which never makes one."""
    if not FAST:
        assert not hasattr(gate._own, "_fast")
        return 0, 0
    fast = gate._own._fast
    return fast.admitted, fast.reported


def taken(gate, step):
    """The events the gate's own calls took (and logged) since the last step:
    the fast path's events rule (K4), not a catch-up by events()."""
    assert _c.respite_gate_events_pending(gate._own.ptr) == 0, f"events left waiting at step {step}"
    return [(step, e.type, e.at) for e in gate._log.pop_all()]


def drained(gate, step):
    """The core-only side's events rule: after its call, every waiting event."""
    return [(step, e.type, e.at) for e in gate.events()]


def replay(fast, fast_other, core, core_other, seed, steps=6000):
    """Drives `fast` through Attempt (its C steps, with the fast path) and
    `core` through the core's calls, the same script on both; the "engine"
    trips and resets each gate through its other handle, on another thread."""
    rng = random.Random(seed)
    held_fast, held_core = [None] * 8, [0] * 8
    fast_log, core_log = [], []
    now = 0.0
    before = fast_counts(fast) if hasattr(fast._own, "_fast") or not FAST else (0, 0)
    engine = ThreadPoolExecutor(1)
    try:
        for step in range(steps):
            slot, what = rng.randrange(8), rng.randrange(10)
            if what < 3:
                attempt = fast.attempt(now)
                try:
                    attempt.__enter__()
                except respite.TemporarilyUnavailableError:
                    attempt = None
                try:
                    want = _c.respite_gate_admit(core._own.ptr, now)
                except respite.TemporarilyUnavailableError:
                    want = 0
                assert (attempt.permit if attempt else 0) == want, f"permit at step {step}"
                held_fast[slot], held_core[slot] = attempt, want
            elif what < 6:
                outcome = rng.choice(OUTCOMES)
                attempt = held_fast[slot] or fast.attempt(now)  # not entered: no permit
                attempt.now = now
                if outcome is not Outcome.SUCCESS or rng.randrange(2):
                    attempt.set_outcome(outcome)
                attempt.__exit__(None, None, None)
                _c.respite_gate_report(core._own.ptr, held_core[slot], outcome.code, 0.0, now)
                held_fast[slot], held_core[slot] = None, 0
            elif what < 8:
                now += rng.randrange(1000) / 400
                continue
            elif what == 8:
                engine.submit(lambda t=now: [_c.respite_gate_report(g._own.ptr, 0, Outcome.TRANSPORT.code, 0.0, t)
                                             for g in (fast_other, core_other)]).result()
                continue
            elif rng.randrange(20) == 0:
                engine.submit(lambda t=now: [_c.respite_gate_reset(g._own.ptr, t)
                                             for g in (fast_other, core_other)]).result()
                continue
            else:  # a time that is not valid goes to the core, which refuses it
                with pytest.raises(respite.InvalidTimeError):
                    fast.attempt(-1.0).__enter__()
                with pytest.raises(respite.InvalidTimeError):
                    _c.respite_gate_admit(core._own.ptr, -1.0)
            fast_log += taken(fast, step)
            core_log += drained(core, step)
            if step % 97 == 0:
                assert fast.stats() == core.stats(), f"stats at step {step}"
    finally:
        engine.shutdown()
    assert fast.stats() == core.stats()
    assert fast_log == core_log
    admitted, reported = fast_counts(fast)
    if FAST:
        assert admitted - before[0] > 500 and reported - before[1] > 150, "the fast path decided the closed path"
    assert len(fast_log) > 20, "the replay went through transitions"
    return fast_log


@pytest.mark.parametrize("probes,seed", [(1, 1), (2, 99), (0, 5)])
def test_replay_with_an_engine_on_the_same_handle(probes, seed):
    fast, core = respite.Gate(probes=probes, **SETTINGS), respite.Gate(probes=probes, **SETTINGS)
    with fast, core:
        replay(fast, fast, core, core, seed)


def test_replay_with_a_second_handle_on_a_shared_gate(tmp_path):
    settings = dict(name="replay", probes=1, **SETTINGS)
    with respite.Gate(shared_path=str(tmp_path / "fast"), **settings) as fast, \
            respite.Gate(shared_path=str(tmp_path / "fast"), **settings) as fast_other, \
            respite.Gate(shared_path=str(tmp_path / "core"), **settings) as core, \
            respite.Gate(shared_path=str(tmp_path / "core"), **settings) as core_other:
        fast_other.events(), core_other.events()  # both others' cursors start level
        replay(fast, fast_other, core, core_other, 3)
        assert [e.type for e in fast_other.events()] == [e.type for e in core_other.events()]


def test_gate_call_and_the_core_clock_with_changes_between_admit_and_report():
    """gate.call and `with gate.attempt()` at the core's clock: the engine
    trips or resets the gate while the call runs (a late success, G6), and
    the block fails or succeeds; the same steps through the core agree."""
    settings = dict(failures_to_enter_recovery=2, failures_window_seconds=1000, recovery_seconds=1000, probes=1)
    fast, core = respite.Gate(**settings), respite.Gate(**settings)
    rng = random.Random(11)
    for step in range(3000):
        change, fails, use_call = rng.randrange(12), rng.randrange(8) == 0, rng.randrange(2)
        if rng.randrange(4) == 0:  # between calls, the engine resets both
            for gate in (fast, core):
                _c.respite_gate_reset(gate._own.ptr, _c.respite_now())

        def meanwhile(gate):
            if change == 0:
                _c.respite_gate_report_now(gate._own.ptr, 0, Outcome.TRANSPORT.code, 0.0)
            elif change < 4:
                _c.respite_gate_reset(gate._own.ptr, _c.respite_now())
            if fails:
                raise ConnectionResetError("down")
            return step

        got = want = "returned"
        try:
            if use_call:
                fast.call(meanwhile, fast)
            else:
                with fast.attempt():
                    meanwhile(fast)
        except (respite.TemporarilyUnavailableError, ConnectionResetError) as exc:
            got = type(exc).__name__
        try:
            permit = _c.respite_gate_admit_now(core._own.ptr)
            try:
                meanwhile(core)
                outcome = Outcome.SUCCESS
            except ConnectionResetError as exc:
                want, outcome = type(exc).__name__, Outcome.TRANSPORT
            _c.respite_gate_report_now(core._own.ptr, permit, outcome.code, 0.0)
        except respite.TemporarilyUnavailableError as exc:
            want = type(exc).__name__
        assert got == want, step
        assert [kind for _, kind, _ in taken(fast, step)] == [kind for _, kind, _ in drained(core, step)], step
        fast_stats, core_stats = fast.stats()._asdict(), core.stats()._asdict()
        for moving in ("delay", "until"):  # the core's clock differs between the two calls
            fast_stats.pop(moving), core_stats.pop(moving)
        assert fast_stats == core_stats, step
    admitted, reported = fast_counts(fast)
    assert not FAST or (admitted > 500 and reported > 200), (admitted, reported)
    assert fast.stats().trips > 50 and fast.stats().late > 200, fast.stats()


def test_threads_count_exactly():
    gate = respite.Gate(failures_to_enter_recovery=1000)
    gate.call(int)  # the handle's first call makes its fast path
    calls, threads = 20_000, 4

    def work():
        for _ in range(calls):
            with gate.attempt():
                pass
            gate.call(int)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    stats = gate.stats()
    assert stats.admitted == stats.reported == 2 * calls * threads + 1
    assert fast_counts(gate) == ((2 * calls * threads + 1,) * 2 if FAST else (0, 0))


def test_a_gate_closed_in_the_block_raises_closed_and_counts_nothing_more():
    gate = respite.Gate()
    gate.call(int)  # the handle's first call makes its fast path
    with gate.attempt():
        pass
    own = gate._own
    assert fast_counts(gate) == ((2, 2) if FAST else (0, 0))
    with pytest.raises(respite.ClosedError):
        with gate.attempt():
            gate.close()
    if FAST:  # admitted by the fast path, then the closed gate's report is the core's error
        assert (own._fast.admitted, own._fast.reported) == (3, 2)
    with pytest.raises(respite.ClosedError):
        gate.call(int)
    with pytest.raises(respite.ClosedError):
        with gate.attempt():
            pytest.fail("the block ran on a closed gate")


def test_the_fast_path_is_per_handle_and_made_at_the_first_call():
    gate, other = respite.Gate(), respite.Gate()
    assert not hasattr(gate._own, "_fast")
    gate.call(int)
    with gate.attempt():
        pass
    assert fast_counts(gate) == ((2, 2) if FAST else (0, 0))
    other.call(int)
    assert fast_counts(other) == ((1, 1) if FAST else (0, 0))
    assert gate.stats().admitted == 2 and other.stats().admitted == 1

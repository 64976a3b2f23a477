"""A closed object raises ClosedError with the core's message; never a crash."""
import copy
import gc
import threading
import weakref

import pytest

import respite


def test_every_gate_method_after_close_raises_closed():
    g = respite.Gate()
    g.close()
    g.close()  # twice is fine
    assert g.closed
    calls = [g.acquire, g.check, g.retry_after, g.report, lambda: g.report_status(200), g.reset, g.state,
             g.stats, g.events, lambda: g.call(print), g.attempt().__enter__, lambda: g.protect(print)()]
    for call in calls:
        with pytest.raises(respite.ClosedError) as info:
            call()
        assert str(info.value) == "gate is closed"


def test_with_statement_closes():
    with respite.Gate() as g:
        g.acquire()
    with pytest.raises(respite.ClosedError):
        g.acquire()


def test_closing_inside_an_attempt_raises_closed_on_exit():
    g = respite.Gate()
    with pytest.raises(respite.ClosedError):
        with g.attempt():
            g.close()


def test_backoff_after_close_raises_closed():
    b = respite.Backoff()
    b.close()
    for call in (b.start, lambda: b.delay(1), lambda: b.next(0, 1, "transport"), lambda: b.max_attempts):
        with pytest.raises(respite.ClosedError) as info:
            call()
        assert str(info.value) == "backoff is closed"


def test_close_while_other_threads_call_never_crashes():
    for _ in range(20):
        g = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=0.001)
        errors = []
        start = threading.Barrier(5)

        def worker():
            start.wait()
            for i in range(2000):
                try:
                    if i % 3:
                        g.call(int)
                    else:
                        with g.attempt() as call:
                            call.set_status(503 if i % 2 else 200)
                except (respite.ClosedError, respite.TemporarilyUnavailableError):
                    pass
                except Exception as exc:  # anything else is a bug
                    errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        start.wait()
        g.close()
        for t in threads:
            t.join()
        assert errors == []


def test_finalizer_frees_without_close():
    for _ in range(1000):
        respite.Gate().acquire()
    gc.collect()


def test_a_gate_in_a_cycle_through_its_c_slots_is_collected():
    """Gate._own and _status_of live in a C base (ext/gate_handle.c): the
    collector still sees them, as it saw the __slots__ they replace."""
    gate = respite.Gate()
    gate._status_of = lambda result: gate and 200  # the gate refers to itself
    gate.call(int)
    gone = weakref.ref(gate)
    del gate
    gc.collect()
    assert gone() is None


def test_the_c_slots_behave_as_python_slots():
    gate = respite.Gate()
    twin = copy.copy(gate)  # the slots are state, as Python slots were
    assert twin._own is gate._own and twin._status_of is None
    del twin._own
    with pytest.raises(AttributeError, match="_own"):
        twin.call(int)
    assert copy.copy(gate._own).addr == gate._own.addr

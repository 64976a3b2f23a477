"""asyncio: gate.call_async, async with gate.attempt(), @gate.protect and
@retry on coroutine functions (issue 20: each of these was wrong before)."""
import asyncio
import gc
import inspect
import time
import warnings

import pytest

import respite


def run(coro):
    return asyncio.run(coro)


def test_protect_on_async_def_counts_its_failures():
    # Before: protect called the coroutine function and reported the
    # coroutine object as a success; four failures left counted_failures 0.
    gate = respite.Gate(failures_to_enter_recovery=10)

    @gate.protect
    async def fetch(x: int) -> int:
        await asyncio.sleep(0)
        raise ConnectionError(f"refused {x}")

    assert inspect.iscoroutinefunction(fetch) and fetch.__name__ == "fetch"
    for i in range(4):
        with pytest.raises(ConnectionError):
            run(fetch(i))
    stats = gate.stats()
    assert stats.counted_failures == 4 and stats.reported == 4


def test_protect_on_async_def_returns_and_is_refused():
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=60)

    @gate.protect
    async def ok(x: int) -> int:
        return x * 2

    @gate.protect
    async def fail() -> None:
        raise TimeoutError()

    assert run(ok(21)) == 42
    with pytest.raises(TimeoutError):
        run(fail())
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        run(ok(1))
    assert info.value.retry_after > 0
    assert gate.stats().admitted == 2


def test_call_async():
    gate = respite.Gate(failures_to_enter_recovery=10)

    async def fetch(x, *, y):
        await asyncio.sleep(0)
        return x + y

    assert run(gate.call_async(fetch, 1, y=2)) == 3
    assert gate.stats().reported == 1 and gate.stats().counted_failures == 0


def test_cancelled_call_reports_nothing():
    gate = respite.Gate(failures_to_enter_recovery=10)

    async def main():
        task = asyncio.ensure_future(gate.call_async(asyncio.sleep, 10))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    stats = gate.stats()
    assert stats.admitted == 1 and stats.reported == 0


def test_async_with_attempt():
    # Before: `async with gate.attempt()` raised TypeError.
    gate = respite.Gate(failures_to_enter_recovery=2, recovery_seconds=60)

    async def main():
        async with gate.attempt() as call:
            call.set_status(503)
        with pytest.raises(ConnectionError):
            async with gate.attempt():
                raise ConnectionError()
        with pytest.raises(respite.TemporarilyUnavailableError):
            async with gate.attempt():
                raise AssertionError("the block runs only when admitted")

    run(main())
    assert gate.stats().counted_failures == 2 and gate.state() == "open"


def test_retry_on_async_def_retries_with_an_async_sleep():
    # Before: one attempt, never retried.
    attempts = []
    slept = []

    async def fake_sleep(delay):
        slept.append(delay)

    @respite.retry(max_attempts=4, initial_delay_seconds=0.25, sleep=fake_sleep)
    async def flaky(x: int) -> int:
        attempts.append(x)
        if len(attempts) < 3:
            raise ConnectionError("reset")
        return x + 1

    assert inspect.iscoroutinefunction(flaky) and flaky.__name__ == "flaky"
    assert run(flaky(1)) == 2
    assert attempts == [1, 1, 1] and slept == [0.25, 0.5]


def test_retry_on_async_def_sleeps_with_asyncio_and_gives_up():
    attempts = []

    @respite.retry(max_attempts=3, initial_delay_seconds=0.01)
    async def down():
        attempts.append(1)
        raise TimeoutError()

    with pytest.raises(respite.TransportError) as info:
        run(down())
    assert len(attempts) == 3 and info.value.attempts == 3 and info.value.last_outcome == "transport"
    assert isinstance(info.value.__cause__, TimeoutError)


def test_retry_on_async_def_with_a_plain_sleep_function():
    slept = []

    @respite.retry(max_attempts=3, initial_delay_seconds=2, sleep=slept.append)  # immediate, as in tests
    async def down():
        raise ConnectionError()

    with pytest.raises(respite.TransportError):
        run(down())
    assert slept == [2, 4]


def test_retry_async_through_a_gate_and_status_of():
    gate = respite.Gate(failures_to_enter_recovery=10)
    answers = iter([503, 200])

    @respite.retry(gate=gate, initial_delay_seconds=0.01, status_of=lambda status: status)
    async def fetch() -> int:
        return next(answers)

    assert run(fetch()) == 200
    stats = gate.stats()
    assert stats.reported == 2 and stats.counted_failures == 1


def test_sync_decorators_keep_signatures():
    gate = respite.Gate()

    @gate.protect
    def add(x: int, y: int = 1) -> int:
        """adds"""
        return x + y

    @respite.retry
    def sub(x: int, y: int) -> int:
        return x - y

    assert add(1) == 2 and add.__doc__ == "adds"
    assert str(inspect.signature(add)) == "(x: int, y: int = 1) -> int"
    assert str(inspect.signature(sub)) == "(x: int, y: int) -> int"
    assert not inspect.iscoroutinefunction(add)


def test_call_with_a_coroutine_function_is_the_callers_mistake():
    # gate.call(async_fn) would otherwise report the coroutine object as a success.
    gate = respite.Gate(failures_to_enter_recovery=1)

    async def down():
        raise ConnectionError()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match=r"use await gate.call_async"):
            gate.call(down)
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)]
    stats = gate.stats()
    assert stats.reported == 1 and stats.counted_failures == 0 and gate.state() == "closed"


def test_sync_retry_of_a_coroutine_is_the_callers_mistake():
    gate = respite.Gate()

    async def down():
        raise ConnectionError()

    with pytest.raises(TypeError, match="Backoff.run_async"):
        respite.retry_call(lambda: down(), gate=gate, sleep=lambda s: None)
    assert gate.stats().reported == 1 and gate.stats().counted_failures == 0


def test_retry_async_awaits_an_async_before_sleep_and_honours_immediate_retries():
    seen = []

    async def hook(event):
        await asyncio.sleep(0)
        seen.append((event.attempt, event.delay))

    @respite.retry(max_attempts=5, initial_delay_seconds=1, multiplier=1, before_sleep=hook)
    async def down():
        raise ConnectionError()

    started = time.monotonic()
    with respite.testing.immediate_retries():
        with pytest.raises(respite.TransportError) as info:
            run(down())
    assert time.monotonic() - started < 1.0  # asyncio.sleep(0) four times: none of the 1 s delays
    assert info.value.attempts == 5 and seen == [(1, 1.0), (2, 1.0), (3, 1.0), (4, 1.0)]

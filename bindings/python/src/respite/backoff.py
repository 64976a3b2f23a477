"""Back-off schedules for retries (spec section 3) and the retry helper."""
from __future__ import annotations

import asyncio
import functools
import inspect
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, List, NamedTuple, Optional, TypeVar, Union, cast, overload

from . import _respite_swig as _c
from . import respite_swig as _raw
from .generated.errors import RespiteError, TransportError
from ._classify import REQUEST_ERROR, Classifier, FailureOn, StatusOf
from ._handle import CLOSED, OwnsHandle
from ._outcome import OutcomeLike, outcome_code, outcome_from_code
from ._settings import new_with_settings
from ._typing import R

if TYPE_CHECKING:
    from .gate import Gate
    from .generated.settings import BackoffSettings
    from ._typing import P, Unpack

T = TypeVar("T")

_SUCCESS = _c.RESPITE_OUTCOME_SUCCESS


class RetryEvent(NamedTuple):
    """What ``before_sleep`` is told before each wait (spec B19): the attempt
    that failed (1 = the first), the delay about to be waited (the schedule's,
    also under :func:`respite.testing.immediate_retries`), the failure's
    outcome name and HTTP status (0: none), and the exception raised or the
    value returned (the other is None)."""

    attempt: int
    delay: float
    outcome: str
    status: int
    exception: Optional[BaseException]
    result: Any


#: called before each wait; what it raises ends the retried call (no wait, no further attempt)
BeforeSleep = Callable[[RetryEvent], Any]


class Backoff(OwnsHandle):
    """A schedule of delays between attempts of one call; settings are keyword
    arguments with the spec's names. Immutable and safe to share between
    threads; each retried call takes its own sequence with :meth:`start`."""

    __slots__ = ("_own", "_settings", "__weakref__")
    _KIND = _c.RESPITE_HANDLE_BACKOFF

    def __init__(self, **settings: Unpack[BackoffSettings]) -> None:
        self._own = CLOSED
        self._settings, self._own = new_with_settings(_c.respite_backoff_new, _c.respite_backoff_free,
                                                      ("backoff", settings, "backoff"))

    def __repr__(self) -> str:
        return f"<respite.Backoff {'closed' if self.closed else self._settings}>"

    @property
    def max_attempts(self) -> int:
        return _c.respite_backoff_max_attempts(self._handle().ptr)

    def start(self) -> int:
        """A new sequence number for one retried call."""
        return _c.respite_backoff_start(self._own.ptr)

    def delay(self, retry: int, *, sequence: int = 0, retry_after: Optional[float] = None) -> float:
        """Seconds before retry ``retry`` (1 = the first retry) of ``sequence``."""
        return _c.respite_backoff_delay(self._own.ptr, sequence, retry, retry_after or 0.0)

    def delays(self, *, sequence: int = 0) -> List[float]:
        """Every delay of a full schedule (max_attempts - 1 of them)."""
        return [self.delay(k, sequence=sequence) for k in range(1, self.max_attempts)]

    def retries_on(self, outcome: OutcomeLike, status: int = 0) -> bool:
        """Whether retry_on lists this outcome or HTTP status."""
        return _c.respite_backoff_retries_on(self._own.ptr, outcome_code(outcome), status) == 1

    def next(self, sequence: int, attempt: int, outcome: OutcomeLike, *, status: int = 0,
             retry_after: Optional[float] = None) -> Optional[float]:
        """After attempt ``attempt`` (1 = the first) ended with ``outcome``:
        the delay before the next attempt, or None when no retry should be made."""
        delay = _c.respite_backoff_next(self._own.ptr, sequence, attempt, outcome_code(outcome), status,
                                        retry_after or 0.0)
        return None if delay < 0 else delay

    def gave_up_error(self, attempts: int, outcome: OutcomeLike, status: int = 0) -> RespiteError:
        """The error a retry loop ends with when this schedule stops it after
        ``attempts`` attempts whose last ended with ``outcome`` (a failure):
        a TransportError with the core's message, for your own loops."""
        try:
            _c.respite_retry_gave_up(self._own.ptr, attempts, outcome_code(outcome), status)
        except RespiteError as exc:
            return exc
        raise AssertionError("respite_retry_gave_up always fills its error")

    def run(self, fn: Callable[[], T], *, gate: Optional[Gate] = None, sleep: Callable[[float], Any] = time.sleep,
            failure_on: Optional[FailureOn] = None, status_of: Optional[StatusOf] = None,
            before_sleep: Optional[BeforeSleep] = None) -> T:
        """Calls ``fn()`` until it succeeds or the schedule ends (see :func:`retry`).
        The core decides each retry and its delay (respite_retry_decide) and
        words the give-up; this loop only sleeps."""
        with _Run(self, gate, Classifier(failure_on, status_of), before_sleep) as run:
            while True:
                run.begin()
                try:
                    result = fn()
                    if inspect.iscoroutine(result):  # nothing ran yet: not a success
                        result.close()
                        raise TypeError("retry: the function returned a coroutine: retry the async def itself "
                                        "(@retry on it, or Backoff.run_async)")
                except Exception as exc:
                    if run.failed(exc) is None:
                        raise  # the caller's own error
                else:
                    if run.returned(result) is None:
                        return result
                sleep(run.wait)

    async def run_async(self, fn: Callable[[], Awaitable[T]], *, gate: Optional[Gate] = None,
                        sleep: Callable[[float], Any] = asyncio.sleep,
                        failure_on: Optional[FailureOn] = None, status_of: Optional[StatusOf] = None,
                        before_sleep: Optional[BeforeSleep] = None) -> T:
        """:meth:`run` for a coroutine function, waiting with ``asyncio.sleep``
        (``sleep``: another function, awaited when it returns an awaitable;
        so is ``before_sleep``)."""
        with _Run(self, gate, Classifier(failure_on, status_of), before_sleep) as run:
            while True:
                run.begin()
                try:
                    result = await fn()
                except Exception as exc:
                    if run.failed(exc) is None:
                        raise  # the caller's own error
                else:
                    if run.returned(result) is None:
                        return result
                if inspect.isawaitable(run.hooked):
                    await run.hooked
                waited = sleep(run.wait)
                if inspect.isawaitable(waited):  # a plain function (a test's) needs no await
                    await waited


class _Run:
    """One retried call, for the loops of Backoff.run and run_async: each
    attempt's outcome by the classifier, reported to the gate, the core's
    decision and the hook; the loops only call and wait ``wait``."""

    __slots__ = ("backoff", "gate", "classifier", "before_sleep", "call", "attempt", "permit", "code", "hooked")

    def __init__(self, backoff: Backoff, gate: Optional[Gate], classifier: Classifier,
                 before_sleep: Optional[BeforeSleep]) -> None:
        if before_sleep is not None and not callable(before_sleep):
            raise TypeError(f"before_sleep must be a function (got {before_sleep!r})")
        self.backoff, self.gate, self.classifier, self.before_sleep = backoff, gate, classifier, before_sleep
        self.call = _raw.respite_retry_call()  # type: ignore[no-untyped-call]  # SWIG's module is untyped
        _c.respite_retry_begin(backoff._own.ptr, self.call)
        self.attempt, self.permit = 0, 0
        self.code: Optional[int] = None  # the last attempt's outcome
        self.hooked: Any = None  # what before_sleep returned (run_async awaits an awaitable)

    @property
    def wait(self) -> float:
        """Seconds to wait before the next attempt (0 under the testing switch)."""
        return cast(float, self.call.wait)

    def begin(self) -> None:
        self.permit = self.gate.acquire() if self.gate is not None else 0  # refused: no attempt is made
        self.attempt += 1

    def failed(self, exc: Exception) -> Optional[float]:
        """The delay before the next attempt; None when ``exc`` is the caller's
        own (reported as request_error, re-raised as it is, B18)."""
        code, status, hint = self.classifier.exception(exc)
        self._report(REQUEST_ERROR if code is None else code, hint)
        return None if code is None else self._decide(code, status, hint, exc, None)

    def returned(self, result: Any) -> Optional[float]:
        """The delay before the next attempt; None on success."""
        code, status = self.classifier.result(result)
        self._report(code, 0.0)
        return None if code == _SUCCESS else self._decide(code, status, 0.0, None, result)

    def _report(self, code: int, hint: float) -> None:
        self.code = code
        if self.gate is not None:
            self.gate._report(self.gate._own, self.permit, code, hint, None)

    def _decide(self, code: int, status: int, hint: float, failure: Optional[BaseException], result: Any) -> float:
        try:
            delay: float = _c.respite_retry_decide(self.backoff._own.ptr, self.call, self.attempt, code, status, hint)
        except TransportError as gave_up:
            gave_up.result = result  # B20: a returned failure (a 503 response) stays readable
            raise gave_up from failure
        if self.before_sleep is not None:
            self.hooked = self.before_sleep(RetryEvent(self.attempt, delay, outcome_from_code(code).value, status,
                                                       failure, result))
        return delay

    def __enter__(self) -> "_Run":
        return self

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        if isinstance(exc, RespiteError):
            # what the loop did, for the caller: attempts made and the last outcome
            exc.attempts = self.attempt  # type: ignore[attr-defined]
            exc.last_outcome = None if self.code is None else outcome_from_code(self.code).value  # type: ignore[attr-defined]


@overload
def retry(fn: Callable[P, R], /) -> Callable[P, R]: ...
@overload
def retry(fn: None = None, /, *, backoff: Optional[Backoff] = None, gate: Optional[Gate] = None,
          sleep: Optional[Callable[[float], Any]] = None, failure_on: Optional[FailureOn] = None,
          status_of: Optional[StatusOf] = None, before_sleep: Optional[BeforeSleep] = None,
          **settings: Unpack[BackoffSettings]) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def retry(fn: Optional[Callable[P, R]] = None, /, *, backoff: Optional[Backoff] = None, gate: Optional[Gate] = None,
          sleep: Optional[Callable[[float], Any]] = None, failure_on: Optional[FailureOn] = None,
          status_of: Optional[StatusOf] = None, before_sleep: Optional[BeforeSleep] = None,
          **settings: Unpack[BackoffSettings]) -> Union[Callable[P, R], Callable[[Callable[P, R]], Callable[P, R]]]:
    """Decorator: retries the function with ``backoff`` (or back-off settings
    as keywords), asking ``gate`` before every attempt. A coroutine function
    is retried with ``await`` and waits with ``asyncio.sleep`` (``sleep``:
    another waiting function). Which exceptions are the service's failures
    and what a returned value means: ``failure_on`` and ``status_of``, as for
    :class:`Gate`; the caller's own exception is re-raised at once, not
    retried (B18). ``before_sleep(event)`` is called before each wait with a
    :class:`RetryEvent`; what it raises ends the call. ``max_elapsed_seconds``
    limits the whole call (B16); :func:`respite.testing.immediate_retries`
    makes the waits 0 in tests (B17). When the core gives up: TransportError,
    chained from the last exception, or carrying the last returned value (a
    503 response) as ``.result`` (B20); while the gate refuses:
    TemporarilyUnavailableError. Either carries ``.attempts`` and
    ``.last_outcome``."""
    if backoff is not None and settings:
        raise TypeError("give either backoff= or back-off settings, not both")
    schedule = backoff if backoff is not None else Backoff(**settings)

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def retried_async(*args: Any, **kwargs: Any) -> Any:
                return await schedule.run_async(lambda: func(*args, **kwargs), gate=gate,
                                                sleep=asyncio.sleep if sleep is None else sleep,
                                                failure_on=failure_on, status_of=status_of,
                                                before_sleep=before_sleep)

            return cast("Callable[P, R]", retried_async)

        @functools.wraps(func)
        def retried(*args: Any, **kwargs: Any) -> Any:
            return schedule.run(lambda: func(*args, **kwargs), gate=gate, sleep=time.sleep if sleep is None else sleep,
                                failure_on=failure_on, status_of=status_of, before_sleep=before_sleep)

        return cast("Callable[P, R]", retried)

    return decorate(fn) if fn is not None else decorate


def retry_call(fn: Callable[[], T], *, backoff: Optional[Backoff] = None, gate: Optional[Gate] = None,
               sleep: Callable[[float], Any] = time.sleep, failure_on: Optional[FailureOn] = None,
               status_of: Optional[StatusOf] = None, before_sleep: Optional[BeforeSleep] = None,
               **settings: Unpack[BackoffSettings]) -> T:
    """Calls ``fn()`` with retries now (the function form of :func:`retry`)."""
    return retry(backoff=backoff, gate=gate, sleep=sleep, failure_on=failure_on, status_of=status_of,
                 before_sleep=before_sleep, **settings)(fn)()

"""Back-off schedules for retries (spec section 3) and the retry helper."""
from __future__ import annotations

import functools
import time
from typing import Any, Callable, List, Optional, TypeVar, Union, cast, overload

from . import _respite_swig as _c
from .generated.errors import RespiteError, TransportError
from ._handle import CLOSED, Owned, OwnsHandle
from ._outcome import OutcomeLike, classify, failure_of, outcome_code, outcome_from_code
from ._settings import new_with_settings

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

_SUCCESS = _c.RESPITE_OUTCOME_SUCCESS


class Backoff(OwnsHandle):
    """A schedule of delays between attempts of one call; settings are keyword
    arguments with the spec's names. Immutable and safe to share between
    threads; each retried call takes its own sequence with :meth:`start`."""

    __slots__ = ("_own", "_settings", "__weakref__")

    def __init__(self, **settings: Any) -> None:
        self._own = CLOSED
        self._settings, self._own = new_with_settings(_c.respite_backoff_new, _c.respite_backoff_free,
                                                      ("backoff", settings, "backoff"))

    def __repr__(self) -> str:
        return f"<respite.Backoff {'closed' if self.closed else self._settings}>"

    @property
    def max_attempts(self) -> int:
        if self._own is CLOSED:
            self.start()  # raises ClosedError with the core's message
        return _c.respite_backoff_max_attempts(self._own.ptr)

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

    def run(self, fn: Callable[[], T], *, gate: Any = None, sleep: Callable[[float], Any] = time.sleep,
            status_of: Optional[Callable[[T], Optional[int]]] = None) -> T:
        """Calls ``fn()`` until it succeeds or the schedule ends (see :func:`retry`).
        The core decides each retry and its delay (respite_retry_decide) and
        words the give-up; this loop only sleeps."""
        sequence = self.start()
        attempt, code = 0, None
        try:
            while True:
                permit = gate.acquire() if gate is not None else 0  # refused: no attempt is made
                attempt += 1
                failure: Optional[BaseException] = None
                try:
                    result = fn()
                except Exception as exc:
                    failure = exc
                    code, status, hint = failure_of(exc)
                else:
                    status = (status_of(result) if status_of is not None else None) or 0
                    code, hint = (classify(status).code if status else _SUCCESS), 0.0
                if gate is not None:
                    gate._report(gate._own, permit, code, hint, None)
                if code == _SUCCESS:
                    return result
                try:
                    delay = _c.respite_retry_decide(self._own.ptr, sequence, attempt, code, status, hint)
                except TransportError as gave_up:
                    raise gave_up from failure
                sleep(delay)
        except RespiteError as exc:
            # what the loop did, for the caller: attempts made and the last outcome
            exc.attempts = attempt  # type: ignore[attr-defined]
            exc.last_outcome = None if code is None else outcome_from_code(code).value  # type: ignore[attr-defined]
            raise


@overload
def retry(fn: F, /) -> F: ...
@overload
def retry(fn: None = None, /, *, backoff: Optional[Backoff] = None, gate: Any = None,
          sleep: Callable[[float], Any] = time.sleep, status_of: Optional[Callable[[Any], Optional[int]]] = None,
          **settings: Any) -> Callable[[F], F]: ...


def retry(fn: Optional[F] = None, /, *, backoff: Optional[Backoff] = None, gate: Any = None,
          sleep: Callable[[float], Any] = time.sleep, status_of: Optional[Callable[[Any], Optional[int]]] = None,
          **settings: Any) -> Union[F, Callable[[F], F]]:
    """Decorator: retries the function with ``backoff`` (or back-off settings
    as keywords), asking ``gate`` before every attempt. An exception is a
    failure of its kind (:func:`respite.failure_of`); ``status_of(result)``
    gives a returned value's HTTP status. When the core gives up:
    TransportError, chained from the last exception; while the gate refuses:
    TemporarilyUnavailableError. Either carries ``.attempts`` and ``.last_outcome``."""
    if backoff is not None and settings:
        raise TypeError("give either backoff= or back-off settings, not both")
    schedule = backoff if backoff is not None else Backoff(**settings)

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def retried(*args: Any, **kwargs: Any) -> Any:
            return schedule.run(lambda: func(*args, **kwargs), gate=gate, sleep=sleep, status_of=status_of)

        return cast(F, retried)

    return decorate(fn) if fn is not None else decorate


def retry_call(fn: Callable[[], T], *, backoff: Optional[Backoff] = None, gate: Any = None,
               sleep: Callable[[float], Any] = time.sleep, status_of: Optional[Callable[[T], Optional[int]]] = None,
               **settings: Any) -> T:
    """Calls ``fn()`` with retries now (the function form of :func:`retry`)."""
    return retry(backoff=backoff, gate=gate, sleep=sleep, status_of=status_of, **settings)(fn)()

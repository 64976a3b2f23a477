"""What counts as the service's failure: exceptions and results of the
user's code mapped to the core's outcome kinds (spec section 1). Whether an
outcome counts, and what follows from it, the core decides."""
from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any, Callable, Optional, Tuple, Type, Union

from .generated.errors import TransportError
from .generated.tables import OUTCOMES, Outcome
from ._outcome import OutcomeLike, classify, failure_of, outcome_code

#: exception types, or a predicate: True (a failure of the kind failure_of
#: reads), an Outcome or its name (that outcome), False/None (the caller's own)
FailureOn = Union[Type[BaseException], Tuple[Type[BaseException], ...],
                  Callable[[BaseException], Union[bool, OutcomeLike, None]]]
#: a returned value's HTTP status, or its Outcome (None: success)
StatusOf = Callable[[Any], Union[int, OutcomeLike, None]]

# Errors the binding can tell are the transport's or the service's.
_SERVICE_ERRORS = (OSError, TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError, TransportError)
# The same for HTTP libraries whose transport errors are not OSErrors, by
# (top-level package, class name) so that none of them is imported.
_LIBRARY_TRANSPORT_ERRORS = frozenset({("httpx", "TransportError"), ("aiohttp", "ClientConnectionError")})
_SUCCESS = Outcome.SUCCESS.code
REQUEST_ERROR = Outcome.REQUEST_ERROR.code


def is_service_failure(exc: BaseException) -> bool:
    """The default rule: True for errors the binding can tell are the
    transport's or the service's (OSError, which covers ConnectionError,
    socket errors and requests' errors; TimeoutError; respite's
    TransportError; httpx's TransportError and aiohttp's
    ClientConnectionError) and for an exception that carries an ``outcome`` or an
    HTTP status (on itself or its ``.response``, as httpx's and requests'
    HTTP errors do). Anything else is the caller's own: not counted."""
    if isinstance(exc, _SERVICE_ERRORS) or any(
            (cls.__module__.partition(".")[0], cls.__name__) in _LIBRARY_TRANSPORT_ERRORS for cls in type(exc).__mro__):
        return True
    outcome = getattr(exc, "outcome", None)
    return failure_of(exc)[1] != 0 or (isinstance(outcome, str) and outcome in OUTCOMES)


class Classifier:
    """One gate's or retry's rules: ``failure_on`` (exception types or a
    predicate; default :func:`is_service_failure`) and ``status_of``."""

    __slots__ = ("failure_on", "status_of")

    def __init__(self, failure_on: Optional[FailureOn] = None, status_of: Optional[StatusOf] = None) -> None:
        types = failure_on if isinstance(failure_on, tuple) else (failure_on,) if isinstance(failure_on, type) else ()
        usable = failure_on is None or callable(failure_on) or isinstance(failure_on, tuple)
        if not usable or not all(isinstance(t, type) and issubclass(t, BaseException) for t in types):
            raise TypeError(f"failure_on must be exception types or a predicate (got {failure_on!r})")
        self.failure_on = failure_on
        self.status_of = status_of

    def exception(self, exc: BaseException) -> Tuple[Optional[int], int, float]:
        """(outcome code, HTTP status or 0, retry_after hint or 0); the code is
        None when the exception is the caller's own (re-raised, reported as
        ``request_error``: not the service's fault)."""
        rule = self.failure_on
        if rule is None:
            verdict: Union[bool, OutcomeLike, None] = is_service_failure(exc)
        elif isinstance(rule, tuple) or isinstance(rule, type):
            verdict = isinstance(exc, rule)
        else:
            verdict = rule(exc)
        if verdict is None or verdict is False:
            return None, 0, 0.0
        code, status, hint = failure_of(exc)
        return (code if verdict is True else outcome_code(verdict)), status, hint

    def result(self, value: Any) -> Tuple[int, int]:
        """(outcome code, HTTP status or 0) of a returned value."""
        verdict = self.status_of(value) if self.status_of is not None else None
        if verdict is None:
            return _SUCCESS, 0
        if isinstance(verdict, int) and not isinstance(verdict, bool):
            return classify(verdict).code, verdict
        return outcome_code(verdict), 0


DEFAULT = Classifier()

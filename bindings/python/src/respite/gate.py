"""The recovery gate (spec section 2): decides when a service may be called."""
from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Awaitable, Callable, List, Optional, Type, TypeVar, cast

from . import _respite_swig as _c
from . import _events
from ._classify import REQUEST_ERROR, Classifier, FailureOn, StatusOf
from ._handle import CLOSED, Owned, OwnsHandle
from ._outcome import OutcomeLike, classify, outcome_code, outcome_from_code
from ._settings import new_with_settings
from .generated.structs import Decision, Event, FleetView, GateStats, fill_struct
from .generated.tables import GATE_STATES, Outcome
from ._typing import R

if TYPE_CHECKING:
    from .generated.settings import FleetSettings, GateSettings
    from ._typing import P, Unpack

_now = _c.respite_now
_admit = _c.respite_gate_admit
_report = _c.respite_gate_report
# As admit/report at the core's clock, read only when the answer needs it.
_admit_now = _c.respite_gate_admit_now
_report_now = _c.respite_gate_report_now
_pending = _c.respite_gate_events_pending

T = TypeVar("T")


class _FleetOwned(Owned):
    """A fleet gate (spec section 11) owned through its local gate, where
    every call goes; freeing stops the fleet's thread and drops the local
    gate with it."""

    __slots__ = ("fleet",)

    def __init__(self, fleet: Any) -> None:
        super().__init__(_c.respite_fleet_gate_gate(fleet), lambda _gate: _c.respite_fleet_gate_free(fleet))
        self.fleet = fleet


def _fleet_gate_new(gate_settings: Any, fleet_settings: Any) -> Owned:
    return _FleetOwned(_c.respite_fleet_gate_new(gate_settings, fleet_settings))


def refusal_message(retry_after: float) -> str:
    """The G17 refusal message for a retry_after (inf: "only after a reset")."""
    return _c.respite_refusal_message(retry_after)


class Gate(_c._GateSlots, OwnsHandle):
    """One recovery gate protecting one service, shared by every thread.
    Settings are keyword arguments with the spec's names over the defaults of
    ``profile`` (``"cloud_request"`` or ``"usage_sharing"``); ``name`` starts its
    log lines. Methods take an optional ``now`` (monotonic seconds, for tests).

    What counts as the service's failure (the same rules as :func:`retry`):
    ``failure_on`` (exception types, or a predicate; default
    :func:`respite.is_service_failure`) and ``status_of(result)`` (an HTTP
    status or an Outcome for a returned value; default: success). An
    exception that is the caller's own is reported as ``request_error`` (not
    counted) and propagates.

    ``fleet`` (the fleet settings: ``fleet_url``, ``fleet_quorum``, ...)
    makes it a fleet gate (spec section 11): the hosts' gates of one
    ``name`` share their openings through Redis; calls never wait on it.
    Its events (``fleet_paused``, ``fleet_store_lost``, ``fleet_rejoined``,
    ``fleet_probing``) are logged as the gate's."""

    # _own and _status_of: in the C base (ext/gate_handle.c), read there
    __slots__ = ("_log", "_settings", "_classifier", "__weakref__")
    _KIND = _c.RESPITE_HANDLE_GATE

    def __init__(self, profile: Optional[str] = None, *, failure_on: Optional[FailureOn] = None,
                 status_of: Optional[StatusOf] = None, fleet: Optional[FleetSettings] = None,
                 **settings: Unpack[GateSettings]) -> None:
        self._own = CLOSED
        self._classifier = Classifier(failure_on, status_of)
        self._status_of = status_of  # read by ext/gate_call.c: None keeps the success path in C
        gate_part = ("gate" if profile is None else profile, settings, "gate")
        if fleet is None:
            self._settings, self._own = new_with_settings(_c.respite_gate_new, _c.respite_gate_free, gate_part)
        else:  # the fleet is named as its gate unless told otherwise
            fleet_part = ("fleet", {"name": settings.get("name", ""), **fleet}, "fleet")
            self._settings, self._own = new_with_settings(_fleet_gate_new, None, gate_part, fleet_part)
        self._log = _events.Log(64)

    @property
    def name(self) -> str:
        """The gate's ``name`` setting ("" when unnamed)."""
        return self._settings["name"]

    def close(self) -> None:
        """Frees the gate (once no call is running). Further use raises ClosedError."""
        own = self._own
        if own is not CLOSED:
            self._poll(own)
            self._own = CLOSED

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<respite.Gate{label} {'closed' if self.closed else 'open'}>"

    def acquire(self, now: Optional[float] = None) -> int:
        """Asks to make a call: returns a permit to report the outcome with,
        or raises TemporarilyUnavailableError (with ``retry_after``)."""
        own = self._own
        try:
            return _admit_now(own.ptr) if now is None else _admit(own.ptr, now)
        finally:
            if _pending(own.ptr) > 0:  # checked here too: no Python frame when nothing is pending
                self._poll(own)

    def check(self, now: Optional[float] = None) -> Decision:
        """Asks to make a call without raising on a refusal."""
        own = self._own
        decision = fill_struct(Decision, _c.respite_gate_check, own.ptr, _now() if now is None else now)
        self._poll(own)
        return decision

    def retry_after(self, now: Optional[float] = None) -> float:
        """Seconds until a call may be admitted: 0 when one would be, inf under recover_never."""
        return _c.respite_gate_retry_after(self._own.ptr, _now() if now is None else now)

    def report(self, outcome: OutcomeLike = Outcome.SUCCESS, *, permit: int = 0,
               retry_after: Optional[float] = None, now: Optional[float] = None) -> None:
        """Reports a call's outcome (an Outcome or its name) with its permit
        (0 = no permit: counted in the current generation)."""
        self._report(self._own, permit, outcome_code(outcome), retry_after, now)

    def report_status(self, status: int, *, permit: int = 0, body_usable: bool = True,
                      retry_after: Optional[float] = None, now: Optional[float] = None) -> Outcome:
        """Reports an HTTP status (classified by the core); returns the outcome."""
        outcome = classify(status, body_usable=body_usable)
        self._report(self._own, permit, outcome.code, retry_after, now)
        return outcome

    def report_exception(self, exc: BaseException, *, permit: int = 0, now: Optional[float] = None) -> Outcome:
        """Reports how a call that raised ``exc`` ended, by the gate's rules
        (the caller's own error: ``request_error``); returns the outcome."""
        code, _status, hint = self._classifier.exception(exc)
        code = REQUEST_ERROR if code is None else code
        self._report(self._own, permit, code, hint, now)
        return outcome_from_code(code)

    def _report(self, own: Owned, permit: int, code: int, hint: Optional[float], now: Optional[float]) -> None:
        if now is None:
            _report_now(own.ptr, permit, code, hint or 0.0)
        else:
            _report(own.ptr, permit, code, hint or 0.0, now)
        if _pending(own.ptr) > 0:
            self._poll(own)

    def reset(self, now: Optional[float] = None) -> None:
        """G14: closed again, with the first pause, an empty window and a new generation."""
        own = self._own
        _c.respite_gate_reset(own.ptr, _now() if now is None else now)
        self._poll(own)

    if TYPE_CHECKING:
        def attempt(self, now: Optional[float] = None) -> "Attempt":
            """A context manager (``with`` or ``async with``) around one call:
            entering asks the gate (refused: TemporarilyUnavailableError, the
            block does not run); leaving reports success, the status or outcome
            set on it, or how an exception leaving the block ended (it propagates)."""
    else:  # in C (ext/attempt.c): makes an Attempt with no Python frame
        attempt = _c._gate_attempt

    if TYPE_CHECKING:
        def call(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
            """Calls ``fn(*args, **kwargs)`` through the gate: refused ->
            TemporarilyUnavailableError and fn is not called; fn returning ->
            success (or what ``status_of`` says); fn raising -> reported by
            the gate's rules, re-raised."""
    else:  # in C (ext/gate_call.c): admit, call and report with no Python frame on the success path
        call = _c._gate_call

    async def call_async(self, fn: Callable[P, Awaitable[T]], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """:meth:`call` for a coroutine function: ``await gate.call_async(fn, ...)``.
        A cancelled call reports nothing (as KeyboardInterrupt, G10)."""
        own = self._own
        permit = self.acquire()
        try:
            result = await fn(*args, **kwargs)
        except BaseException as exc:
            self._call_failed(own, permit, exc)
            raise
        self._call_returned(own, permit, result)
        return result

    def protect(self, fn: Callable[P, R]) -> Callable[P, R]:
        """Decorator: every call of ``fn`` goes through :meth:`call`, or
        through :meth:`call_async` when ``fn`` is a coroutine function.
        The signature is kept (functools.wraps, ParamSpec)."""
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def protected_async(*args: Any, **kwargs: Any) -> Any:
                return await self.call_async(fn, *args, **kwargs)

            return cast("Callable[P, R]", protected_async)
        protected = functools.partial(self.call, fn)
        functools.update_wrapper(protected, fn)
        return cast("Callable[P, R]", protected)

    def _call_failed(self, own: Owned, permit: int, exc: BaseException) -> None:
        # KeyboardInterrupt, SystemExit, cancellation: the call did not end, nothing to report (G10)
        if isinstance(exc, Exception):
            code, _status, hint = self._classifier.exception(exc)
            self._report(own, permit, REQUEST_ERROR if code is None else code, hint, None)

    def _call_returned(self, own: Owned, permit: int, result: Any) -> None:
        # called by ext/gate_call.c only when status_of is set
        self._report(own, permit, self._classifier.result(result)[0], None, None)

    def state(self, now: Optional[float] = None) -> str:
        """``"closed"``, ``"open"`` or ``"probing"`` at ``now``."""
        return GATE_STATES[_c.respite_gate_get_state(self._own.ptr, _now() if now is None else now)]

    def stats(self) -> GateStats:
        return fill_struct(GateStats, _c.respite_gate_stats_get, self._own.ptr)

    def fleet_view(self) -> Optional[FleetView]:
        """A fleet gate's fleet as its thread last read it (F12); None for a
        gate made without ``fleet``. Closed: ClosedError."""
        own = self._own
        if isinstance(own, _FleetOwned) or own is CLOSED:  # closed: the core's ClosedError
            return fill_struct(FleetView, _c.respite_fleet_gate_view, getattr(own, "fleet", None))
        return None

    def events(self) -> List[Event]:
        """The events (G18) seen since the last call of events(), oldest
        first (at most the last 64). They are also logged as they are seen."""
        self._log.take(_c.respite_gate_next_event, self._own.ptr)  # closed: the core's ClosedError
        return self._log.pop_all()

    def _poll(self, own: Owned) -> None:
        """The one rule, after every call into the gate: when events are
        pending, take and log them (``own``: this gate's handle, or the one an
        engine or client holds)."""
        if _pending(own.ptr) > 0:
            self._log.take(_c.respite_gate_next_event, own.ptr)


class _AttemptMethods:
    """The Python methods of :class:`Attempt`, whose state, ``__enter__`` and
    ``__exit__`` are C (ext/attempt.c): entering asks the gate; leaving
    reports the outcome set here, success, or what the gate's classifier
    says of an exception leaving the block (which propagates)."""

    if TYPE_CHECKING:
        gate: Gate
        now: Optional[float]
        permit: int
        _code: Optional[int]
        _retry_after: Optional[float]

        def __init__(self, gate: Gate, now: Optional[float] = None) -> None: ...

        def __enter__(self) -> "Attempt": ...

        def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                     tb: Any) -> None: ...

    def set_status(self, status: int, *, body_usable: bool = True, retry_after: Optional[float] = None) -> None:
        """The call got this HTTP status (classified by the core)."""
        self._set(classify(status, body_usable=body_usable).code, retry_after)

    def set_outcome(self, outcome: OutcomeLike, *, retry_after: Optional[float] = None) -> None:
        """The call ended with this outcome (overrides any status)."""
        self._set(outcome_code(outcome), retry_after)

    def _set(self, code: int, retry_after: Optional[float]) -> None:
        self._code = code
        if retry_after is not None:
            self._retry_after = retry_after

    def unusable(self) -> None:
        """The answer came but could not be used (empty, not parseable...)."""
        self.set_outcome(Outcome.UNUSABLE)

    async def __aenter__(self) -> "Attempt":
        return self.__enter__()  # asking the gate never blocks

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                        tb: Any) -> None:
        self.__exit__(exc_type, exc, tb)


if TYPE_CHECKING:
    class Attempt(_AttemptMethods):
        """One call made through a gate; see :meth:`Gate.attempt`."""
else:
    # One type, made in C (no Python subclass: its instances stay cheap to
    # make and free); the methods above are added to it.
    Attempt = _c.Attempt
    for _name in ("set_status", "set_outcome", "_set", "unusable", "__aenter__", "__aexit__"):
        setattr(Attempt, _name, _AttemptMethods.__dict__[_name])

_c._gate_classes(Gate, Owned)

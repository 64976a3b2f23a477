"""One request of another HTTP library (httpx, requests) through a gate and,
optionally, a back-off: what each answer or exception means, by the core's
rules. The library modules only send, close, sleep and re-raise."""
from __future__ import annotations

from typing import Any, Optional, cast

from . import _respite_swig as _c
from . import respite_swig as _raw
from ._outcome import classify, outcome_code
from .backoff import Backoff
from .gate import Gate
from .generated.errors import TransportError
from .generated.tables import Outcome


class Exchange:
    """The attempts of one request: :meth:`begin` before each (the gate may
    refuse: TemporarilyUnavailableError, nothing is sent), then
    :meth:`answered` or :meth:`failed`, which report the attempt to the gate
    and return the seconds to wait before the next attempt, or None when there is none."""

    __slots__ = ("gate", "backoff", "call", "attempt", "permit")

    def __init__(self, gate: Gate, backoff: Optional[Backoff]) -> None:
        self.gate, self.backoff = gate, backoff
        self.call: Any = None  # the core's state of this request's retries (B16, B17)
        if backoff is not None:
            self.call = _raw.respite_retry_call()  # type: ignore[no-untyped-call]  # SWIG's module is untyped
            _c.respite_retry_begin(backoff._own.ptr, self.call)
        self.attempt, self.permit = 0, 0

    def begin(self) -> None:
        self.permit = self.gate.acquire()
        self.attempt += 1

    def answered(self, status: int, retry_after: Optional[str]) -> Optional[float]:
        """An answer with this status and Retry-After header (None: none)."""
        hint = _c.respite_retry_after_seconds(status, retry_after)
        return self._settle(classify(status), status, hint)

    def failed(self, transport: bool) -> Optional[float]:
        """An exception: the library's transport failure (counted, retried),
        or the caller's own (``request_error``: not counted, never retried)."""
        if not transport:
            self.gate.report(Outcome.REQUEST_ERROR, permit=self.permit)
            return None
        return self._settle(Outcome.TRANSPORT, 0, 0.0)

    def _settle(self, outcome: Outcome, status: int, hint: float) -> Optional[float]:
        self.gate.report(outcome, permit=self.permit, retry_after=hint)  # B13: before the back-off decides
        if self.backoff is None or outcome is Outcome.SUCCESS:
            return None
        try:
            _c.respite_retry_decide(self.backoff._own.ptr, self.call, self.attempt, outcome_code(outcome), status, hint)
        except TransportError:  # the core gave up (B14, B16): the last answer or exception is the caller's
            return None
        return cast(float, self.call.wait)  # 0 under respite.testing.immediate_retries()

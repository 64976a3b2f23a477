"""The delivery engine (spec section 5, S1-S5): the sender's decisions on
the caller's clock, without threads, network or sleeping. One thread
drives an engine; producers use the queue, which is thread-safe::

    while True:
        action = engine.next()
        if action == "send":
            batch = engine.take()
            status = post(batch.payloads)          # your HTTP call
            engine.settle(batch, status=status)
        elif action == "wait":
            time.sleep(engine.wait_seconds)
        elif action == "idle":
            queue.wait(engine.min_entries, timeout=1.0)
        else:  # "done"
            break
"""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

from . import _respite_swig as _c
from . import respite_swig as _raw
from . import _events
from ._errors import refusal, translate
from ._handle import CLOSED, Owned, OwnsHandle
from ._settings import new_with_settings
from .gate import Gate
from .policy import Policy
from .queue import Batch, Queue

# `(own := self._own).ptr` keeps the handle alive for the whole call, which
# runs without the GIL: a close() in another thread meanwhile cannot free it.
_now = _c.respite_now


class EngineStats(NamedTuple):
    sends: int
    probes: int
    sends_failed: int
    refusals: int
    events_sent: int
    unsent: int
    closing: bool
    closed_while_paused: bool
    close_deadline: float


def engine_stats_from(out: Any) -> EngineStats:
    """EngineStats from a raw respite_engine_stats."""
    return EngineStats(out.sends, out.probes, out.sends_failed, out.refusals, out.events_sent, out.unsent,
                       bool(out.closing), bool(out.closed_while_paused), out.close_deadline)


class Engine(OwnsHandle):
    """Joins a queue, its policy and a gate. Settings are the sender's
    (``min_entries_per_message``, ``max_entries_per_message``,
    ``close_timeout_seconds``). The engine keeps its queue, policy and gate
    alive while it lives."""

    __slots__ = ("_own", "_parts", "queue", "gate", "policy", "_settings", "_recent", "name", "__weakref__")

    def __init__(self, queue: Queue, gate: Gate, policy: Optional[Policy] = None, *, name: Optional[str] = None,
                 **settings: Any) -> None:
        self._own = CLOSED
        self.queue, self.gate, self.policy, self.name = queue, gate, policy, name
        self._recent: List[_events.Event] = []

        def new(raw: Any) -> Any:
            self._parts = (queue._own, gate._own, policy._own if policy is not None else CLOSED)
            parts = self._parts  # the borrowed handles outlive the engine
            return _c.respite_engine_new(parts[0].ptr, parts[1].ptr, raw)

        self._settings, ptr = new_with_settings("sender", settings, "sender", new)
        self._own = Owned(ptr, _c.respite_engine_free)

    def close(self) -> None:
        """Frees the engine (a batch in flight goes back to the queue)."""
        self._own = CLOSED

    def next(self, now: Optional[float] = None) -> str:
        """``"send"``, ``"wait"`` (see wait_seconds), ``"idle"`` or ``"done"``."""
        try:
            action = _c.respite_engine_next((own := self._own).ptr, _now() if now is None else now)
        except RuntimeError as exc:
            raise translate(exc) from None
        self._poll()
        return _c.respite_action_name(action)

    @property
    def wait_seconds(self) -> float:
        """After ``"wait"``: seconds until the gate admits again (inf under recover_never)."""
        return _c.respite_engine_wait_seconds((own := self._own).ptr)

    def take(self, now: Optional[float] = None) -> Optional[Batch]:
        """The next batch, admitted through the gate, or None when nothing is
        pending. Raises TemporarilyUnavailableError when the gate refuses."""
        own = self._own
        t = _now() if now is None else now
        try:
            ptr = _c.respite_engine_take(own.ptr, t)
        except RuntimeError as exc:
            err = translate(exc)
            self._poll()
            if getattr(err, "status", None) == "temporarily_unavailable":
                raise refusal(self.gate.retry_after(t)) from None
            raise err from None
        self._poll()
        return None if ptr is None else Batch(ptr, owned=False, keep=own)

    def settle(self, batch: Batch, *, status: Optional[int] = None, transport: bool = False,
               retry_after: Optional[float] = None, now: Optional[float] = None) -> None:
        """Reports how sending the batch ended: an HTTP status, or
        ``transport=True`` when it did not complete. Frees the batch."""
        try:
            _c.respite_engine_settle((own := self._own).ptr, (batch_own := batch._own).ptr,
                                     1 if transport or status is None else 0, 0 if status is None else status, retry_after or 0.0,
                                     _now() if now is None else now)
        except RuntimeError as exc:
            raise translate(exc) from None
        finally:
            batch._own = CLOSED  # the engine freed it (or owns it still)
        self._poll()

    def shutdown(self, now: Optional[float] = None) -> None:
        """S5: start closing: the queue refuses new events, then ``next``
        drains (or, when paused, gives ``"done"`` at once)."""
        try:
            _c.respite_engine_close((own := self._own).ptr, _now() if now is None else now)
        except RuntimeError as exc:
            raise translate(exc) from None

    @property
    def is_closing(self) -> bool:
        return _c.respite_engine_is_closing((own := self._own).ptr) == 1

    def unsent(self) -> Optional[int]:
        """Events left unsent once ``"done"`` was reached (None before)."""
        own = self._own
        if _c.respite_engine_is_closing(own.ptr) < 0:
            _c.respite_engine_unsent(own.ptr)  # raises closed
        try:
            value = _c.respite_engine_unsent(own.ptr)
        except RuntimeError as exc:
            raise translate(exc) from None
        return None if value < 0 else value

    @property
    def min_entries(self) -> int:
        return _c.respite_engine_min_entries((own := self._own).ptr)

    @property
    def max_entries(self) -> int:
        return _c.respite_engine_max_entries((own := self._own).ptr)

    def stats(self) -> EngineStats:
        out = _raw.respite_engine_stats()
        try:
            _c.respite_engine_stats_get((own := self._own).ptr, out)
        except RuntimeError as exc:
            raise translate(exc) from None
        return engine_stats_from(out)

    def events(self) -> List[_events.Event]:
        """The engine's own events (unsent_at_close) since the last call;
        the gate's are on the gate."""
        self._poll(raise_closed=True)
        out, self._recent = self._recent, []
        return out

    def _poll(self, raise_closed: bool = False) -> None:
        own = self._own
        if own is CLOSED and not raise_closed:
            return
        try:
            events = _events.drain(_c.respite_engine_next_event, own.ptr)
        except RuntimeError as exc:
            raise translate(exc) from None
        if events:
            self._recent.extend(events)
            del self._recent[:-64]
            _events.log(events, self.name)
        # The engine drives the gate in C: forward the gate's events too.
        self.gate._poll(self._parts[1])

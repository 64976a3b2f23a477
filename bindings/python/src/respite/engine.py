"""The delivery engine (spec section 5, S1-S5): the sender's decisions on
the caller's clock, without threads, network or sleeping. One thread drives
an engine (next, take, settle; docs/python.md shows the loop); producers use
the queue, which is thread-safe.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

from . import _respite_swig as _c
from . import _events
from ._handle import CLOSED, Owned, OwnsHandle, reader
from ._settings import new_with_settings
from .generated.structs import EngineStats, Event, fill_struct
from .generated.tables import ACTIONS
from .gate import Gate
from .queue import Batch, Queue

if TYPE_CHECKING:
    from .generated.settings import SenderSettings
    from ._typing import Unpack

_now = _c.respite_now


class Engine(OwnsHandle):
    """Joins a queue (settling by its policy) and a gate. Settings are the
    sender's (``name``, ``min_entries_per_message``, ``max_entries_per_message``,
    ``close_timeout_seconds``). The engine holds its own references to the
    queue and gate in the core, so they may be closed in any order;
    ``close()`` puts a batch still in flight back at the queue's head."""

    __slots__ = ("_own", "_gate", "queue", "gate", "_settings", "_log", "__weakref__")

    def __init__(self, queue: Queue, gate: Gate, **settings: Unpack[SenderSettings]) -> None:
        self._own = CLOSED
        self.queue, self.gate = queue, gate
        self._log = _events.Log(64)
        queue_own, gate_own = queue._own, gate._own  # alive for the call
        self._settings, self._own = new_with_settings(
            lambda raw: _c.respite_engine_new(queue_own.ptr, gate_own.ptr, raw), _c.respite_engine_free,
            ("sender", settings, "sender"))
        self._gate = Owned(gate_own.ptr, None)  # the engine's reference keeps it valid

    def next(self, now: Optional[float] = None) -> str:
        """``"send"``, ``"wait"`` (see wait_seconds), ``"idle"`` or ``"done"``."""
        try:
            return ACTIONS[_c.respite_engine_next((own := self._own).ptr, _now() if now is None else now)]
        finally:
            self._poll(own)

    wait_seconds = reader(_c.respite_engine_wait_seconds,
                          """After ``"wait"``: seconds until the gate admits again (inf under recover_never).""")

    def take(self, now: Optional[float] = None) -> Optional[Batch]:
        """The next batch, admitted through the gate, or None when nothing is
        pending. Raises TemporarilyUnavailableError when the gate refuses."""
        try:
            ptr = _c.respite_engine_take((own := self._own).ptr, _now() if now is None else now)
        finally:
            self._poll(own)
        return None if ptr is None else Batch(Owned(ptr, None), own)

    def settle(self, batch: Batch, *, status: Optional[int] = None, transport: bool = False,
               retry_after: Optional[float] = None, now: Optional[float] = None) -> None:
        """Reports how sending the batch ended: an HTTP status, or
        ``transport=True`` when it did not complete. Frees the batch; one the
        core refused to settle stays in flight, to be settled again."""
        try:
            _c.respite_engine_settle((own := self._own).ptr, batch._own.ptr, 1 if transport or status is None else 0,
                                     status or 0, retry_after or 0.0, _now() if now is None else now)
            batch.close()  # the engine freed it
        finally:
            self._poll(own)

    def shutdown(self, now: Optional[float] = None) -> None:
        """S5: start closing: the queue refuses new events, then ``next``
        drains (or, when paused, gives ``"done"`` at once)."""
        _c.respite_engine_close((own := self._own).ptr, _now() if now is None else now)

    is_closing = reader(lambda ptr: _c.respite_engine_is_closing(ptr) == 1)

    def unsent(self) -> Optional[int]:
        """Events left unsent once ``"done"`` was reached (None before)."""
        value = _c.respite_engine_unsent(self._own.ptr)
        return None if value < 0 else value

    min_entries = reader(_c.respite_engine_min_entries)
    max_entries = reader(_c.respite_engine_max_entries)

    def stats(self) -> EngineStats:
        return fill_struct(EngineStats, _c.respite_engine_stats_get, (own := self._own).ptr)

    def events(self) -> List[Event]:
        """The engine's own events (unsent_at_close) since the last call;
        the gate's are on the gate."""
        self._poll(self._own, raise_closed=True)
        return self._log.pop_all()

    def _poll(self, own: Owned, raise_closed: bool = False) -> None:
        if own is CLOSED and not raise_closed:
            return
        self._log.take(_c.respite_engine_next_event, own.ptr)
        self.gate._poll(self._gate)  # the engine calls into the gate: the one rule holds

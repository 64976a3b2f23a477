"""The delivery queue (spec section 4) and batches of events taken from it.

A queue is safe to share between threads: producers enqueue while one
consumer (a sender, or the Engine) takes and settles batches. Calls that
may wait on the queue's lock release the GIL.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Union

from . import _respite_swig as _c
from ._handle import CLOSED, Owned, OwnsHandle, optional, reader
from ._settings import new_with_settings
from .generated.structs import QueueStats, fill_struct
from .generated.tables import DISPOSITIONS
from .policy import Policy

if TYPE_CHECKING:
    from .generated.settings import QueueSettings
    from ._typing import Unpack

_now = _c.respite_now

Payload = Union[bytes, bytearray, memoryview, str]

class Queue(OwnsHandle):
    """Events waiting for delivery under a policy (None: ``@default``);
    settings ``overflow`` and ``max_bytes``."""

    __slots__ = ("_own", "policy", "_settings", "__weakref__")

    def __init__(self, policy: Optional[Policy] = None, **settings: Unpack[QueueSettings]) -> None:
        self._own = CLOSED
        self.policy = policy
        policy_own = optional(policy)  # the queue takes its own reference
        self._settings, self._own = new_with_settings(lambda raw: _c.respite_queue_new(policy_own.ptr, raw),
                                                      _c.respite_queue_free, ("queue", settings, "queue"))

    def enqueue(self, payload: Payload, now: Optional[float] = None) -> None:
        """Queues one event (bytes, or str as UTF-8). Raises QueueFullError
        (drop_newest at capacity), TooLargeError, ClosedError after shutdown."""
        _c.respite_queue_enqueue((own := self._own).ptr, payload, _now() if now is None else now)  # str: its UTF-8

    def shutdown(self) -> None:
        """Refuses every later enqueue; taking and settling still work (drain)."""
        _c.respite_queue_close((own := self._own).ptr)

    is_shut_down = reader(lambda ptr: _c.respite_queue_is_closed(ptr) == 1)

    def __len__(self) -> int:
        return self.pending

    pending = reader(_c.respite_queue_pending, "Events queued and not taken.")

    def expire(self, now: Optional[float] = None) -> int:
        """Drops pending events whose age reached event_ttl (D6); returns how many."""
        return _c.respite_queue_expire((own := self._own).ptr, _now() if now is None else now)

    def take(self, max_events: int = 1, now: Optional[float] = None) -> Optional["Batch"]:
        """Takes up to max_events from the head as an in-flight batch, or None."""
        ptr = _c.respite_queue_take((own := self._own).ptr, max_events, _now() if now is None else now)
        return None if ptr is None else Batch(Owned(ptr, _c.respite_batch_free))

    def wait(self, min_pending: int = 1, timeout: float = 0.0) -> bool:
        """Blocks (without the GIL) until min_pending events are pending or the
        queue shuts down (True), or timeout seconds pass (False)."""
        return _c.respite_queue_wait((own := self._own).ptr, min_pending, timeout) == 1

    def stats(self) -> QueueStats:
        return fill_struct(QueueStats, _c.respite_queue_stats_get, (own := self._own).ptr)

    def close(self) -> None:
        """Shuts the queue down, which wakes a thread blocked in wait() at
        once, and frees it once no call is inside it (an engine keeps its
        own reference). Idempotent."""
        if (own := self._own) is not CLOSED:
            _c.respite_queue_close(own.ptr)
        super().close()


class Batch(OwnsHandle):
    """Events taken together. Settle each (or all) with a disposition:
    ``"delivered"``, ``"retry"``, ``"discarded"``, ``"retries_exhausted"``.
    A batch from :meth:`Queue.take` is freed by :meth:`close` (or ``with``),
    which puts retried and unsettled events back at the head (D4); one from
    :meth:`Engine.take` belongs to the engine, which frees it."""

    __slots__ = ("_own", "_engine", "__weakref__")

    def __init__(self, own: Owned, engine: Owned = CLOSED) -> None:
        self._own = own
        self._engine = engine  # the engine that frees this batch lives as long

    def close(self) -> None:
        self._own = self._engine = CLOSED

    def __len__(self) -> int:
        return _c.respite_batch_count(self._own.ptr)

    unsettled = reader(_c.respite_batch_unsettled)

    def payload(self, index: int) -> bytes:
        return _c.respite_batch_event_text(self._own.ptr, index)

    @property
    def payloads(self) -> List[bytes]:
        return [self.payload(i) for i in range(len(self))]

    def id(self, index: int) -> int:
        """The event's id: increasing, never reused in its queue (L3); a
        receiver deduplicates on it (the sender's ids_header)."""
        return _c.respite_batch_event_id(self._own.ptr, index)

    def attempts(self, index: int) -> int:
        """Attempts including this one (1 on the first take)."""
        return _c.respite_batch_event_attempts(self._own.ptr, index)

    def age(self, index: int, now: Optional[float] = None) -> float:
        return _c.respite_batch_event_age(self._own.ptr, index, _now() if now is None else now)

    def disposition(self, index: int) -> Optional[str]:
        code = _c.respite_batch_event_disposition(self._own.ptr, index)
        return None if code < 0 else DISPOSITIONS[code]

    def settle(self, index: int, disposition: Union[str, int]) -> str:
        """Settles one event; returns the disposition applied (retry may
        become retries_exhausted, D3)."""
        return DISPOSITIONS[_c.respite_batch_settle((own := self._own).ptr, index, _disposition(disposition))]

    def settle_all(self, disposition: Union[str, int]) -> int:
        return _c.respite_batch_settle_all((own := self._own).ptr, _disposition(disposition))


def _disposition(disposition: Union[str, int]) -> int:
    """A name's number; a number as given: the core words what it accepts (got 99)."""
    if isinstance(disposition, int) and not isinstance(disposition, bool):
        return disposition
    return DISPOSITIONS.index(disposition) if disposition in DISPOSITIONS else -1

"""Events (G18) taken from a handle's ring and logged, in the core's words.

Logger ``respite``: a warning when sending pauses or a pause grows (and for
failed sends / unsent events), information when it resumes.
"""
from __future__ import annotations

import collections
import logging
import threading
from typing import Any, Callable, Deque, List

from . import respite_swig as _raw
from .generated.structs import Event, read_struct

logger = logging.getLogger("respite")
logger.addHandler(logging.NullHandler())  # a library leaves output to the application


class Log:
    """A handle's events: logged as they are taken, in the core's words
    (the handle's name included) and unchanged; the last ``keep`` kept for
    ``events()``.

    No lock is held while logging: a handler may call back into the
    handle (and take its events) without deadlocking. Events are logged in
    the order taken by one thread at a time, the drainer; another thread
    (or the drainer's handler, re-entering) leaves its events to it."""

    __slots__ = ("recent", "lock", "_unlogged", "_draining")

    def __init__(self, keep: int) -> None:
        self.recent: Deque[Event] = collections.deque(maxlen=keep)
        self.lock = threading.Lock()  # guards the deques and the drainer's flag; never held while logging
        self._unlogged: Deque[Event] = collections.deque()
        self._draining = False

    def take(self, next_event: Callable[[Any, Any], int], handle: Any) -> None:
        """Takes every waiting event from a handle's ring and logs it."""
        raw = _raw.respite_event()  # type: ignore[no-untyped-call]  # SWIG's module is untyped
        with self.lock:
            while next_event(handle, raw) == 1:
                event = read_struct(Event, raw)
                self.recent.append(event)
                self._unlogged.append(event)
            if self._draining or not self._unlogged:
                return
            self._draining = True
        while True:
            with self.lock:  # found empty and handed back under one lock: no event is left behind
                if not self._unlogged:
                    self._draining = False
                    return
                event = self._unlogged.popleft()
            try:
                level = logging.WARNING if event.is_warning else logging.INFO
                if logger.isEnabledFor(level):
                    logger.log(level, "%s", event.message, extra={"respite_event": event})
            except BaseException:
                with self.lock:
                    self._draining = False
                raise

    def pop_all(self) -> List[Event]:
        with self.lock:
            out = list(self.recent)
            self.recent.clear()
        return out

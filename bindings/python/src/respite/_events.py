"""Events (G18) taken from a handle's ring and logged, in the core's words.

Logger ``respite``: a warning when sending pauses or a pause grows (and for
failed sends / unsent events), information when it resumes.
"""
from __future__ import annotations

import collections
import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Deque, List

from . import _respite_swig as _c
from . import respite_swig as _raw
from .generated.tables import EVENT_TYPES, WARNING_EVENT_TYPES

logger = logging.getLogger("respite")
logger.addHandler(logging.NullHandler())  # a library leaves output to the application


@dataclass(frozen=True)
class Event:
    """One transition of a gate (or sender) with its time and figures."""

    type: str           #: "recovery_started", "recovery_extended", "probing", "recovered", "reset", ...
    at: float           #: when it happened, on the caller's clock
    failures: int = 0   #: recovery_started: failures in the window
    window: float = 0.0  #: recovery_started: failures_window_seconds
    pause: float = 0.0  #: recovery_started / recovery_extended: seconds
    http_status: int = 0  #: send_failed: status, 0 for transport
    count: int = 0      #: unsent_at_close: events not sent
    detail: str = ""    #: send_failed: start of the body or the error
    message: str = ""   #: the core's line for it (respite_event_message), as logged: "<name>: ..." when named
    source: str = ""    #: the name of the handle it came from ("" when unnamed)
    is_warning: bool = False  #: logged as a warning (respite_event_is_warning)


def drain(next_event: Callable[[Any, Any], int], handle: Any) -> List[Event]:
    """Takes every waiting event from a handle's ring."""
    out: List[Event] = []
    raw = _raw.respite_event()
    while next_event(handle, raw) == 1:
        kind = EVENT_TYPES[raw.type]
        out.append(Event(kind, raw.at, raw.failures, raw.window, raw.pause, raw.http_status, raw.count, raw.detail,
                         _c.respite_event_message(raw), raw.source, kind in WARNING_EVENT_TYPES))
    return out


class Log:
    """A handle's events: logged as they are taken, in the core's words
    (the handle's name included) and unchanged; the last ``keep`` kept for
    ``events()``."""

    __slots__ = ("recent", "lock")

    def __init__(self, keep: int) -> None:
        self.recent: Deque[Event] = collections.deque(maxlen=keep)
        self.lock = threading.Lock()  # one reader at a time keeps the log in order

    def take(self, next_event: Callable[[Any, Any], int], handle: Any) -> None:
        """Takes every waiting event from a handle's ring and logs it."""
        with self.lock:
            for event in drain(next_event, handle):
                self.recent.append(event)
                level = logging.WARNING if event.is_warning else logging.INFO
                if logger.isEnabledFor(level):
                    logger.log(level, "%s", event.message, extra={"respite_event": event})

    def pop_all(self) -> List[Event]:
        with self.lock:
            out = list(self.recent)
            self.recent.clear()
        return out

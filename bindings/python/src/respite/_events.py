"""Events (G18) read from a handle's ring and forwarded to ``logging``.

Logger ``respite``: a warning when sending pauses or a pause grows (and for
failed sends / unsent events), information when it resumes.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable, List, Optional

from . import _respite_swig as _c
from . import respite_swig as _raw

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
    message: str = ""   #: the core's words for it, the line every binding logs (G18)

    @property
    def is_warning(self) -> bool:
        return _c.respite_event_is_warning(_TYPE_CODES[self.type]) == 1


_TYPE_CODES = {_c.respite_event_type_name(i): i for i in range(_c.RESPITE_EVENT_TYPE_COUNT)}


def drain(next_event: Callable[[Any, Any], int], handle: Any) -> List[Event]:
    """Takes every waiting event from a handle's ring."""
    out: List[Event] = []
    raw = _raw.respite_event()
    while next_event(handle, raw) == 1:
        out.append(Event(_c.respite_event_type_name(raw.type), raw.at, raw.failures, raw.window,
                         raw.pause, raw.http_status, raw.count, raw.detail,
                         _c.respite_event_message(raw)))
    return out


def describe(event: Event, source: Optional[str]) -> str:
    """One log line for an event: the core's words (respite_event_message),
    after "<source>: " when the handle has a name."""
    who = f"{source}: " if source else ""
    return who + event.message


def log(events: List[Event], source: Optional[str]) -> None:
    for event in events:
        level = logging.WARNING if event.is_warning else logging.INFO
        if logger.isEnabledFor(level):
            logger.log(level, "%s", describe(event, source), extra={"respite_event": event})

"""respite: when a client may call a cloud service, when to retry, and what
happens to work that could not be delivered. Python binding of the C core:
``Gate`` (``gate.call``, ``gate.attempt()``), ``retry``, ``Policy``,
``Queue``, ``Engine``, an HTTP ``Client`` and a background ``Sender``.

See docs/python.md for a quickstart. The raw SWIG module mirroring the C
API is ``respite.respite_swig``.
"""
from __future__ import annotations

from .generated import errors as _errors
from .generated.errors import *  # noqa: F401,F403  (RespiteError, every status's class, ERRORS_BY_STATUS, ...)
from .generated.settings import (BackoffSettings, ClientSettings, FleetSettings, GateSettings, QueueSettings,
                                SenderOptions, SenderSettings)
from ._classify import FailureOn, StatusOf, is_service_failure
from .generated.structs import Decision, EngineStats, Event, FleetView, GateStats, QueueStats, SenderStats
from .generated.tables import Outcome, SettingInfo
from ._outcome import classify, failure_of, outcome_counts
from ._settings import Settings, settings_table
from . import testing
from .backoff import Backoff, BeforeSleep, RetryEvent, retry, retry_call
from .engine import Engine
from .gate import Attempt, Gate, refusal_message
from .http import CancelToken, Client, Response, ResponseHeaders, Sender
from .policy import Policy
from .queue import Batch, Queue

__version__ = "0.1.0"

# Written out (not computed) so type checkers see every re-export; the
# errors' list is generated (literal too) from the core's status table.
__all__ = [
    "BackoffSettings", "ClientSettings", "FleetSettings", "GateSettings", "QueueSettings", "SenderOptions",
    "SenderSettings",
    "FailureOn", "StatusOf", "is_service_failure",
    "Attempt", "Backoff", "BeforeSleep", "Batch", "CancelToken", "Client", "Decision", "Engine", "EngineStats", "Event", "FleetView",
    "Gate", "GateStats", "RetryEvent", "testing",
    "Outcome", "Policy", "Queue", "QueueStats", "Response", "ResponseHeaders", "Sender", "SenderStats",
    "SettingInfo", "Settings", "classify", "failure_of", "outcome_counts", "refusal_message", "retry", "retry_call",
    "settings_table",
]
__all__ += _errors.__all__

"""respite: when a client may call a cloud service, when to retry, and what
happens to work that could not be delivered. Python binding of the C core.

    import respite
    gate = respite.Gate(failures_to_enter_recovery=5, recovery_seconds=30)
    with gate.attempt() as call:
        response = session.get(url)
        call.set_status(response.status_code)

    client = respite.Client(gate=gate, timeout_seconds=2.0)   # HTTP through the gate
    with respite.Sender(url=collector_url) as sender:          # background delivery
        sender.enqueue('{"event": 1}')

See docs/python.md for a quickstart. The raw SWIG module mirroring the C
API is ``respite.respite_swig``.
"""
from __future__ import annotations

from ._errors import (ERRORS_BY_STATUS, ClosedError, InvalidPolicyError, InvalidSettingError, Problem,
                      RespiteError, TemporarilyUnavailableError, refusal_message)
from ._events import Event
from ._outcome import Outcome, classify, failure_of, outcome_counts
from ._settings import SettingInfo, Settings, settings_table
from .backoff import Backoff, retry, retry_call
from .engine import Engine, EngineStats
from .gate import Attempt, Decision, Gate, GateStats
from .http import Client, Response, ResponseHeaders, Sender, SenderStats
from .policy import Policy
from .queue import Batch, Queue, QueueStats

# The classes generated from the core's status table (QueueFullError, ...).
for _cls in ERRORS_BY_STATUS.values():
    globals()[_cls.__name__] = _cls
del _cls

__version__ = "0.1.0"

__all__ = [
    "Attempt", "Backoff", "Batch", "Client", "Response", "ResponseHeaders", "Sender", "SenderStats", "Engine", "EngineStats", "Policy", "Queue", "QueueStats", "ClosedError", "Decision", "ERRORS_BY_STATUS", "Event", "Gate", "GateStats",
    "InvalidPolicyError", "InvalidSettingError", "Outcome", "Problem", "RespiteError", "SettingInfo",
    "TemporarilyUnavailableError", "Settings", "classify", "failure_of", "outcome_counts", "refusal_message", "retry", "retry_call", "settings_table",
] + sorted({cls.__name__ for cls in ERRORS_BY_STATUS.values()} - {"ClosedError", "InvalidPolicyError",
                                                                   "InvalidSettingError", "TemporarilyUnavailableError"})

"""respite: when a client may call a cloud service, when to retry, and what
happens to work that could not be delivered. Python binding of the C core:
``Gate`` (``gate.call``, ``gate.attempt()``), ``retry``, ``Policy``,
``Queue``, ``Engine``, an HTTP ``Client`` and a background ``Sender``.

See docs/python.md for a quickstart. The raw SWIG module mirroring the C
API is ``respite.respite_swig``.
"""
from __future__ import annotations

from .generated.errors import *  # noqa: F401,F403  (RespiteError, InvalidSettingError, ..., ERRORS_BY_STATUS)
from .generated.errors import __all__ as _errors_all
from ._events import Event
from ._outcome import Outcome, classify, failure_of, outcome_counts
from ._settings import SettingInfo, Settings, settings_table
from .backoff import Backoff, retry, retry_call
from .engine import Engine, EngineStats
from .gate import Attempt, Decision, Gate, GateStats, refusal_message
from .http import Client, Response, ResponseHeaders, Sender, SenderStats
from .policy import Policy
from .queue import Batch, Queue, QueueStats

__version__ = "0.1.0"

__all__ = [*_errors_all, "Attempt", "Backoff", "Batch", "Client", "Decision", "Engine", "EngineStats", "Event",
           "Gate", "GateStats", "Outcome", "Policy", "Queue", "QueueStats", "Response", "ResponseHeaders", "Sender",
           "SenderStats", "SettingInfo", "Settings", "classify", "failure_of", "outcome_counts", "refusal_message",
           "retry", "retry_call", "settings_table"]

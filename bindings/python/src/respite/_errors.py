"""The exception hierarchy, made from the core's status table.

Every status of the C core (``respite_status_name(i)``) has a class named
after it: ``invalid_setting`` -> ``InvalidSettingError``. The C side
(ext/errors.c) raises ``error_from_fields(code, message, setting,
retry_after)`` for every filled ``respite_error``: the core's fields, never
its text, decide the class and its attributes.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Type

from . import _respite_swig as _c


class RespiteError(Exception):
    """Root of every error respite raises. ``str(err)`` is the core's message."""

    #: the core's stable status name ("invalid_setting", "closed", ...)
    status: str = "internal"
    #: the core's numeric status code
    code: int = 0

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidSettingError(RespiteError, ValueError):
    """A setting is unknown or its value is not accepted; ``.setting`` names it."""

    def __init__(self, message: str, setting: str = "") -> None:
        super().__init__(message)
        self.setting: str = setting


class TemporarilyUnavailableError(RespiteError):
    """The gate refused the call (G17); ``.retry_after`` is in seconds
    (``math.inf`` when the gate recovers only after a reset)."""

    def __init__(self, message: str, retry_after: float = math.nan) -> None:
        super().__init__(message)
        self.retry_after: float = retry_after


class Problem(NamedTuple):
    """One problem of a delivery policy: JSON pointer, message, and for a
    syntax error the line and column (0 otherwise)."""

    pointer: str
    message: str
    line: int = 0
    column: int = 0


class InvalidPolicyError(RespiteError, ValueError):
    """The delivery policy is not valid; ``.problems`` lists every problem."""

    def __init__(self, message: str, problems: Optional[List[Problem]] = None) -> None:
        super().__init__(message)
        self.problems: List[Problem] = list(problems or [])


class ClosedError(RespiteError, ValueError):
    """The object was closed; nothing can be done with it any more."""


# Classes with more than the message, and the builtin each status also
# derives from so that idiomatic ``except ValueError`` keeps working.
_SPECIAL = {cls.__name__: cls for cls in (InvalidSettingError, TemporarilyUnavailableError, InvalidPolicyError,
                                          ClosedError)}
_BUILTIN_BASES: Dict[str, type] = {"invalid_argument": ValueError, "invalid_time": ValueError,
                                   "no_memory": MemoryError, "too_large": ValueError}

#: status name -> exception class, for every status of the core but "ok"
ERRORS_BY_STATUS: Dict[str, Type[RespiteError]] = {}
_BY_CODE: Dict[int, Type[RespiteError]] = {}

for _code in range(1, _c.respite_status_count()):
    _name = _c.respite_status_name(_code)
    _cls_name = "".join(part.capitalize() for part in _name.split("_")) + "Error"
    _cls = _SPECIAL.get(_cls_name) or type(_cls_name, (RespiteError,) + ((_BUILTIN_BASES[_name],) if _name in _BUILTIN_BASES else ()),
                                           {"__doc__": _c.respite_strerror(_code).capitalize() + "."})
    _cls.__module__, _cls.status, _cls.code = "respite", _name, _code
    ERRORS_BY_STATUS[_name] = _BY_CODE[_code] = _cls
    globals()[_cls_name] = _cls
RespiteError.__module__ = Problem.__module__ = "respite"

if TYPE_CHECKING:  # the classes made above, for type checkers and editors
    class InvalidArgumentError(RespiteError, ValueError): ...
    class InvalidTimeError(RespiteError, ValueError): ...
    class QueueFullError(RespiteError): ...
    class TooLargeError(RespiteError, ValueError): ...
    class NoMemoryError(RespiteError, MemoryError): ...
    class TransportError(RespiteError): ...
    class InternalError(RespiteError): ...


def error_from_fields(code: int, message: str, setting: str = "", retry_after: float = math.nan) -> RespiteError:
    """The exception for a respite_error's fields; each class takes the ones it carries."""
    cls = _BY_CODE.get(code, RespiteError)
    if cls is InvalidSettingError:
        return InvalidSettingError(message, setting)
    if cls is TemporarilyUnavailableError:
        return TemporarilyUnavailableError(message, retry_after)
    return cls(message)


def refusal_message(retry_after: float) -> str:
    """The G17 refusal message for a retry_after (inf: "only after a reset")."""
    return _c.respite_refusal_message(retry_after)

"""The exception hierarchy, generated from the core's status table.

Every status of the C core (``respite_status_name(i)``) has a class named
after it: ``invalid_setting`` -> ``InvalidSettingError``. The raw SWIG module
raises ``RuntimeError("<status_name>: <message>")``; :func:`translate` turns
that into the right class with the core's message unchanged.
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

    def __init__(self, message: str, setting: Optional[str] = None) -> None:
        super().__init__(message)
        # The core guarantees the message starts with the setting's name.
        self.setting: str = setting if setting is not None else message.split(" ", 1)[0]


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
_SPECIAL: Dict[str, Type[RespiteError]] = {
    "invalid_setting": InvalidSettingError,
    "temporarily_unavailable": TemporarilyUnavailableError,
    "invalid_policy": InvalidPolicyError,
    "closed": ClosedError,
}
_BUILTIN_BASES: Dict[str, type] = {
    "invalid_argument": ValueError,
    "invalid_time": ValueError,
    "no_memory": MemoryError,
    "too_large": ValueError,
}


def class_name(status_name: str) -> str:
    """``"invalid_setting"`` -> ``"InvalidSettingError"``."""
    return "".join(part.capitalize() for part in status_name.split("_")) + "Error"


#: status name -> exception class, for every status of the core but "ok"
ERRORS_BY_STATUS: Dict[str, Type[RespiteError]] = {}


def _generate() -> None:
    for code in range(_c.respite_status_count()):
        name = _c.respite_status_name(code)
        if name == "ok":
            continue
        cls = _SPECIAL.get(name)
        if cls is None:
            bases = (RespiteError,) + ((_BUILTIN_BASES[name],) if name in _BUILTIN_BASES else ())
            cls = type(class_name(name), bases, {"__doc__": _c.respite_strerror(code).capitalize() + ".",
                                                "__module__": "respite"})
        else:
            cls.__module__ = "respite"
        cls.status = name
        cls.code = code
        ERRORS_BY_STATUS[name] = cls
        globals()[cls.__name__] = cls


_generate()

if TYPE_CHECKING:  # the generated classes, for type checkers and editors
    class InvalidArgumentError(RespiteError, ValueError): ...
    class InvalidTimeError(RespiteError, ValueError): ...
    class QueueFullError(RespiteError): ...
    class TooLargeError(RespiteError, ValueError): ...
    class NoMemoryError(RespiteError, MemoryError): ...
    class TransportError(RespiteError): ...
    class InternalError(RespiteError): ...


def error_for(status_name: str, message: str) -> RespiteError:
    """The exception for a status name and the core's message."""
    cls = ERRORS_BY_STATUS.get(status_name)
    if cls is None:
        err = RespiteError(message)
        err.status = status_name
        return err
    return cls(message)


def translate(exc: BaseException) -> BaseException:
    """Turns the raw module's ``RuntimeError("<status>: <message>")`` into
    the matching class; any other exception is returned unchanged."""
    if type(exc) is not RuntimeError or not exc.args:
        return exc
    text = str(exc.args[0])
    status, sep, message = text.partition(": ")
    if not sep or status not in ERRORS_BY_STATUS:
        return exc
    err = error_for(status, message)
    # A refusal's seconds (err->retry_after of the core), set by python.i.
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None and isinstance(err, TemporarilyUnavailableError):
        err.retry_after = retry_after
    return err


def refusal_message(retry_after: float) -> str:
    """The G17 refusal message for a retry_after (inf: "only after a reset")."""
    return _c.respite_refusal_message(retry_after)


def refusal(retry_after: float) -> TemporarilyUnavailableError:
    """The G17 refusal for a retry_after, with the core's message."""
    return TemporarilyUnavailableError(_c.respite_refusal_message(retry_after), retry_after)

"""Outcomes of one call (spec section 1) and how Python failures map to them."""
from __future__ import annotations

import math
from typing import Optional, Tuple, Union

from . import _respite_swig as _c
from .generated.tables import OUTCOMES, Outcome

# name -> the core's number
_CODES = {name: code for code, name in enumerate(OUTCOMES)}
_BY_CODE = {code: Outcome(name) for name, code in _CODES.items()}

OutcomeLike = Union[Outcome, str, int]


def outcome_code(outcome: OutcomeLike) -> int:
    """The core's number for an Outcome, a name or a number (the core checks names)."""
    if isinstance(outcome, str):  # an Outcome too
        code = _CODES.get(outcome)
        return code if code is not None else _c.respite_outcome_from_name(outcome)
    if isinstance(outcome, int) and not isinstance(outcome, bool):
        # an unknown number: the core words O1 (got 9)
        return outcome if outcome in _BY_CODE else _c.respite_outcome_check(outcome)
    raise TypeError(f"outcome must be an Outcome, an outcome name or a number (got {type(outcome).__name__})")


def outcome_counts(outcome: OutcomeLike, count_all_failures: bool = False) -> bool:
    """Whether an outcome counts against the service (with count_all_failures, every non-success does)."""
    return _c.respite_outcome_counts(outcome_code(outcome), 1 if count_all_failures else 0) == 1


def outcome_from_code(code: int) -> Outcome:
    return _BY_CODE[code]


def classify(status: Optional[int] = None, *, transport_failed: bool = False, body_usable: bool = True) -> Outcome:
    """Classifies one call (spec section 1) with the core's rules."""
    # The status as given: a float or a str is refused (TypeError), never truncated or parsed.
    return _BY_CODE[_c.respite_classify(1 if transport_failed else 0, 0 if status is None else status,
                                        1 if body_usable else 0)]


def _status_of(obj: object) -> Optional[int]:
    for attr in ("status_code", "status", "http_status", "code"):
        value = getattr(obj, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return value
    return None


def failure_of(exc: BaseException) -> Tuple[int, int, float]:
    """(outcome code, HTTP status or 0, retry_after hint or 0) for an
    exception raised by the user's code that is a failure of the call
    (whether it is one at all: :func:`respite.is_service_failure`, or the
    gate's or retry's ``failure_on``).

    An exception may say what happened: an ``outcome`` attribute (an Outcome
    or its name), or an HTTP status as ``status_code``/``status``/
    ``http_status``/``code`` on itself or on its ``response`` (as requests
    and httpx errors do), and a ``retry_after`` in seconds. Anything else
    is a ``transport`` failure: the call did not complete.
    """
    hint = getattr(exc, "retry_after", None)
    hint = float(hint) if isinstance(hint, (int, float)) and not isinstance(hint, bool) and 0 < hint < math.inf else 0.0
    status = _status_of(exc)
    if status is None:
        response = getattr(exc, "response", None)
        if response is not None:
            status = _status_of(response)
    outcome = getattr(exc, "outcome", None)
    if isinstance(outcome, Outcome) or (isinstance(outcome, str) and outcome in _CODES):
        return outcome_code(outcome), status or 0, hint
    if status is not None:
        code = _c.respite_classify(0, status, 1)
        if code == _CODES["success"]:  # an exception with a 2xx: the answer was not usable
            code = _CODES["unusable"]
        return code, status, hint
    return _CODES["transport"], 0, hint

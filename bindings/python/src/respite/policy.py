"""Delivery policies (spec section 4): what happens to an event whose
delivery failed. Immutable once made; safe to share between threads."""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _respite_swig as _c
from ._handle import Owned, OwnsHandle, reader
from .generated.tables import STRATEGIES

Handler = Tuple[str, str]  # (on, strategy): ("server_error", "retry"), ("404,410", "discard")


class Policy(OwnsHandle):
    """A validated delivery policy (Astarte's trigger delivery policy). An
    invalid one raises InvalidPolicyError with ``.problems`` (every problem,
    each with its JSON pointer and the core's message)."""

    __slots__ = ("_own", "__weakref__")
    _KIND = _c.RESPITE_HANDLE_POLICY

    def __init__(self, _ptr: Any) -> None:
        self._own = Owned(_ptr, _c.respite_policy_free)

    @classmethod
    def from_json(cls, document: Union[str, bytes]) -> "Policy":
        """Parses and validates a JSON document, str or UTF-8 bytes (the GIL
        is released meanwhile)."""
        return cls(_c.respite_policy_from_json_n(document))

    @classmethod
    def from_dict(cls, document: Mapping[str, Any]) -> "Policy":
        return cls.from_json(json.dumps(document))

    @classmethod
    def build(cls, name: Optional[str], maximum_capacity: int, handlers: Iterable[Union[Handler, Mapping[str, str]]],
              *, retry_times: Optional[int] = None, event_ttl: Optional[int] = None,
              prefetch_count: Optional[int] = None) -> "Policy":
        """A policy without JSON; validated with the same rules and messages."""
        builder = _c.respite_policy_builder_new(name, maximum_capacity)
        try:
            for handler in handlers:
                on, strategy = ((handler["on"], handler["strategy"]) if isinstance(handler, Mapping) else handler)
                if isinstance(on, (list, tuple)):
                    on = ",".join(str(code) for code in on)
                _c.respite_policy_builder_add_handler(builder, on, strategy)
            for value, setter in ((retry_times, _c.respite_policy_builder_set_retry_times),
                                  (event_ttl, _c.respite_policy_builder_set_event_ttl),
                                  (prefetch_count, _c.respite_policy_builder_set_prefetch_count)):
                if value is not None:
                    setter(builder, value)
            return cls(_c.respite_policy_builder_build(builder))
        finally:
            _c.respite_policy_builder_free(builder)

    @classmethod
    def default(cls) -> "Policy":
        """The built-in ``@default`` policy: discard on any error, capacity 1000 (D8)."""
        return cls(_c.respite_policy_default())

    name = reader(_c.respite_policy_name)
    maximum_capacity = reader(_c.respite_policy_maximum_capacity)
    retry_times = reader(_c.respite_policy_retry_times, "Resends after the first attempt (0 when nothing retries).")
    event_ttl = reader(_c.respite_policy_event_ttl, "Seconds; 0 when unset.")
    prefetch_count = reader(_c.respite_policy_prefetch_count)

    @property
    def handlers(self) -> List[Handler]:
        ptr = (own := self._handle()).ptr  # `own` keeps the handle alive meanwhile
        return [(_c.respite_policy_handler_on(ptr, i),
                 STRATEGIES[_c.respite_policy_handler_strategy(ptr, i)])
                for i in range(_c.respite_policy_handler_count(ptr))]

    def strategy_for(self, status: Optional[int] = None, *, transport: bool = False) -> str:
        """``"retry"`` or ``"discard"`` for a failed attempt (D2); a
        transport failure matches as 503."""
        code = _c.respite_policy_strategy_for(self._own.ptr, 1 if transport else 0,
                                              0 if status is None else status)
        return STRATEGIES[code]

    def to_json(self) -> str:
        """Canonical compact JSON; reads back as an equal policy."""
        return _c.respite_policy_to_json(self._own.ptr)

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.to_json())

    def __repr__(self) -> str:
        return "<respite.Policy closed>" if self.closed else f"<respite.Policy {self.to_json()}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Policy) and not self.closed and not other.closed and \
            self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

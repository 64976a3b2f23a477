"""Settings by their spec names: keyword arguments become core settings.

The core checks every name, type and range and writes every message, so a
bad value raises InvalidSettingError worded exactly as in every language.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import _respite_swig as _c
from ._errors import translate

_TYPE_NAMES = {0: "integer", 1: "number", 2: "boolean", 3: "choice", 4: "string", 5: "list"}

SettingValue = Union[bool, int, float, str, Sequence[Union[str, int]]]


class SettingInfo(NamedTuple):
    """One row of the core's settings table."""

    component: str
    name: str
    type: str
    default: Any
    min: Optional[float]
    max: Optional[float]
    accepted: str
    doc: str


def _info_from_row(row: Any) -> SettingInfo:
    kind = _TYPE_NAMES.get(row.type, "unknown")
    if kind == "integer":
        default: Any = int(row.default_number)
    elif kind == "number":
        default = row.default_number
    elif kind == "boolean":
        default = bool(row.default_number)
    else:
        default = row.default_text
    bounded = kind in ("integer", "number")
    return SettingInfo(row.component, row.name, kind, default,
                       row.min if bounded else None, row.max if bounded else None,
                       row.accepted, row.doc)


def settings_table(component: Optional[str] = None) -> Iterator[SettingInfo]:
    """Every setting of the core (of one component when given)."""
    for i in range(_c.respite_setting_count()):
        info = _info_from_row(_c.respite_setting_at(i))
        if component is None or info.component == component:
            yield info


def make_settings(component_or_profile: str, values: Mapping[str, Any]) -> Any:
    """A raw respite_settings for a component or profile with the given
    overrides applied (None values mean "the default"). Caller frees it."""
    try:
        raw = _c.respite_settings_new(component_or_profile)
    except RuntimeError as exc:
        raise translate(exc) from None
    try:
        for name, value in values.items():
            if value is not None:
                _set(raw, name, value)
        _c.respite_settings_validate(raw)
    except RuntimeError as exc:
        _c.respite_settings_free(raw)
        raise translate(exc) from None
    except BaseException:
        _c.respite_settings_free(raw)
        raise
    return raw


def _set(raw: Any, name: str, value: Any) -> None:
    if isinstance(value, bool):
        _c.respite_settings_set_boolean(raw, name, 1 if value else 0)
    elif isinstance(value, int):
        if -(2**63) <= value < 2**63:
            _c.respite_settings_set_integer(raw, name, value)
        else:  # let the core say it is out of range
            _c.respite_settings_set_number(raw, name, float(value))
    elif isinstance(value, float):
        _c.respite_settings_set_number(raw, name, value)
    elif isinstance(value, str):
        _c.respite_settings_set_text(raw, name, value)
    elif isinstance(value, (list, tuple, set, frozenset)):
        # retry_on=["transport", 503] -> "transport,503"
        _c.respite_settings_set_text(raw, name, ",".join(str(v) for v in value))
    else:
        raise TypeError(f"{name}: a setting's value must be a bool, int, float, str or list "
                        f"(got {type(value).__name__})")


def read_settings(raw: Any, component: str) -> Dict[str, Any]:
    """The current value of every setting of a component in raw settings."""
    out: Dict[str, Any] = {}
    for info in settings_table(component):
        if info.type in ("integer", "number", "boolean"):
            number = _c.respite_settings_get_number(raw, info.name)
            out[info.name] = (int(number) if info.type == "integer"
                              else bool(number) if info.type == "boolean" else number)
        else:
            out[info.name] = _c.respite_settings_get_text(raw, info.name)
    return out


class Settings:
    """A validated bag of settings for a component or profile, for checking
    a configuration up front or reading defaults::

        Settings("usage_sharing", recovery_seconds=5).get("max_recovery_seconds")  # 300.0
    """

    __slots__ = ("_raw", "component")

    def __init__(self, component_or_profile: str = "gate", **values: Any) -> None:
        self._raw = None
        self._raw = make_settings(component_or_profile, values)
        self.component: str = _c.respite_settings_component(self._raw)

    def get(self, name: str) -> Any:
        """A setting's value (the core's error for an unknown name)."""
        row = _c.respite_setting_find(self.component, name)
        try:
            if row is not None and row.type in (3, 4, 5):
                return _c.respite_settings_get_text(self._raw, name)
            number = _c.respite_settings_get_number(self._raw, name)
        except RuntimeError as exc:
            raise translate(exc) from None
        if row is not None and row.type == 2:
            return number != 0.0
        if row is not None and row.type == 0:
            return int(number)
        return number

    def to_dict(self) -> Dict[str, Any]:
        return read_settings(self._raw, self.component)

    def __del__(self) -> None:
        raw, self._raw = self._raw, None
        if raw is not None:
            _c.respite_settings_free(raw)


def new_with_settings(component_or_profile: str, values: Mapping[str, Any], component: str,
                      new: Callable[[Any], Any]) -> Tuple[Dict[str, Any], Any]:
    """Every setting's value of ``component`` and ``new(raw)`` for settings by
    name; the raw settings are freed whatever happens."""
    raw = make_settings(component_or_profile, values)
    try:
        return read_settings(raw, component), new(raw)
    except RuntimeError as exc:
        raise translate(exc) from None
    finally:
        _c.respite_settings_free(raw)

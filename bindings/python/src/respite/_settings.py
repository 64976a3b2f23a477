"""Settings by their spec names: keyword arguments become core settings.

The core checks every name, type and range and writes every message, so a
bad value raises InvalidSettingError worded exactly as in every language.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

from . import _respite_swig as _c
from ._handle import Owned
from .generated.structs import read_setting
from .generated.tables import SETTINGS, SettingInfo



def settings_table(component: Optional[str] = None) -> Iterator[SettingInfo]:
    """Every setting of the core (of one component when given)."""
    return (info for info in SETTINGS if component is None or info.component == component)


def make_settings(component_or_profile: str, values: Mapping[str, Any]) -> Any:
    """A raw respite_settings for a component or profile with the given
    overrides applied (None is no text: the core refuses it, E3). Caller frees it."""
    raw = _c.respite_settings_new(component_or_profile)
    try:
        for name, value in values.items():
            _set(raw, name, value)
        _c.respite_settings_validate(raw)
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
    elif isinstance(value, str) or value is None:
        _c.respite_settings_set_text(raw, name, value)
    elif isinstance(value, (list, tuple, set, frozenset)):
        # retry_on=["transport", 503] -> "transport,503"
        _c.respite_settings_set_text(raw, name, ",".join(str(v) for v in value))
    else:
        raise TypeError(f"{name}: a setting's value must be a bool, int, float, str or list "
                        f"(got {type(value).__name__})")


def read_settings(raw: Any, component: str) -> Dict[str, Any]:
    """The current value of every setting of a component in raw settings."""
    return {info.name: read_setting(raw, component, info.name) for info in settings_table(component)}


class Settings:
    """A validated bag of settings for a component or profile, for checking
    a configuration up front or reading defaults."""

    __slots__ = ("_own", "component")

    def __init__(self, component_or_profile: str = "gate", **values: Any) -> None:
        self._own = Owned(make_settings(component_or_profile, values), _c.respite_settings_free)
        self.component: str = _c.respite_settings_component(self._own.ptr)

    def get(self, name: str) -> Any:
        """A setting's value (the core's error for an unknown name)."""
        return read_setting(self._own.ptr, self.component, name)

    def to_dict(self) -> Dict[str, Any]:
        return read_settings(self._own.ptr, self.component)


def new_with_settings(new: Callable[..., Any], free: Optional[Callable[[Any], None]],
                      *parts: Tuple[str, Mapping[str, Any], str]) -> Tuple[Dict[str, Any], Owned]:
    """``new(raw, ...)`` over raw settings made for each (profile, values,
    component), owned with ``free`` (None: ``new`` returns its own Owned),
    and every setting's value (a later part's wins a shared name); the raw
    settings are freed whatever happens."""
    raws: List[Any] = []
    settings: Dict[str, Any] = {}
    try:
        for profile, values, _component in parts:
            raws.append(make_settings(profile, values))
        made = new(*raws)  # first: the core refuses another component's settings
        own = made if free is None else Owned(made, free)
        for raw, (_profile, _values, component) in zip(raws, parts):
            settings.update(read_settings(raw, component))
        return settings, own
    finally:
        for raw in raws:
            _c.respite_settings_free(raw)

"""Readers for the generated named tuples of the core's structs
(generated/structs.py): each field read from SWIG's struct as it is, or
through a function, so statistics and decisions never restate a struct."""
from __future__ import annotations

import operator
from typing import Any, Callable, Dict, List, Type, TypeVar

S = TypeVar("S")

# generated class -> (SWIG struct class, one getter per field)
_READERS: Dict[type, "tuple[type, List[Callable[[Any], Any]]]"] = {}


def struct_tuple(cls: type, raw_cls: type, doc: str, **read: Callable[[Any], Any]) -> None:
    """Makes the generated named tuple ``cls`` readable from the SWIG struct
    ``raw_cls``: each field as it is, or through its function in ``read``.
    Fails at import when the header (that the tuple was generated from) and
    SWIG's struct disagree."""
    fields = [f for f, v in vars(raw_cls).items() if isinstance(v, property) and f != "thisown"]
    expected = tuple(fields + [f for f in read if f not in fields])
    if getattr(cls, "_fields") != expected:
        raise ImportError(f"{cls.__name__}: generated fields {getattr(cls, '_fields')} differ from {expected}")
    cls.__doc__ = doc
    cls.__module__ = "respite"
    _READERS[cls] = (raw_cls, [read.get(f, operator.attrgetter(f)) for f in expected])


def read_struct(cls: Type[S], out: Any) -> S:
    """The named tuple ``cls`` read from a filled SWIG struct."""
    return cls(*(get(out) for get in _READERS[cls][1]))


def fill_struct(cls: Type[S], fn: Callable[..., Any], *args: Any) -> S:
    """The named tuple ``cls`` read from the struct that ``fn(*args, out)`` fills."""
    out = _READERS[cls][0]()
    fn(*args, out)
    return read_struct(cls, out)

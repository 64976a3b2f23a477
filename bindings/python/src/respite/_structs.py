"""Readers for the generated named tuples of the core's structs
(generated/structs.py): each field read from SWIG's struct as it is, or
through a function, so statistics and decisions never restate a struct."""
from __future__ import annotations

import operator
from typing import Any, Callable, Type, TypeVar

S = TypeVar("S")


def struct_tuple(cls: Type[S], raw_cls: type, doc: str, **read: Callable[[Any], Any]) -> Type[S]:
    """Gives the generated named tuple ``cls`` ``cls.of(out)``, which reads a
    raw struct (each field as it is, or through its function in ``read``),
    and ``cls.fill(fn, *args)``, which reads the struct that ``fn(*args,
    out)`` fills. Fails at import when the header (that the tuple was
    generated from) and SWIG's struct disagree."""
    fields = [f for f, v in vars(raw_cls).items() if isinstance(v, property) and f != "thisown"]
    expected = tuple(fields + [f for f in read if f not in fields])
    if getattr(cls, "_fields") != expected:
        raise ImportError(f"{cls.__name__}: generated fields {getattr(cls, '_fields')} differ from {expected}")
    cls.__doc__ = doc
    cls.__module__ = "respite"
    getters = [read.get(f, operator.attrgetter(f)) for f in expected]
    setattr(cls, "of", classmethod(lambda c, out: c(*(get(out) for get in getters))))

    def fill(c: Any, fn: Callable[..., Any], *args: Any) -> Any:
        out = raw_cls()
        fn(*args, out)
        return c.of(out)

    setattr(cls, "fill", classmethod(fill))
    return cls

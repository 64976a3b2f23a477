"""Named tuples with the fields of the core's structs, in C order, so that
statistics and decisions never restate a struct: a field the core adds
appears here by itself."""
from __future__ import annotations

import collections
import operator
from typing import Any, Callable


def struct_tuple(name: str, raw_cls: type, doc: str, **read: Callable[[Any], Any]) -> Any:
    """A named tuple class with the fields of a SWIG struct class, plus any
    extra name in ``read``. ``cls.of(out)`` reads a raw struct: each field
    as it is, or through its function in ``read``; ``cls.fill(fn, *args)``
    reads the struct that ``fn(*args, out)`` fills."""
    fields = [f for f, v in vars(raw_cls).items() if isinstance(v, property) and f != "thisown"]
    cls = collections.namedtuple(name, fields + [f for f in read if f not in fields],  # type: ignore[misc]
                                 module="respite")
    cls.__doc__ = doc
    getters = [read.get(f, operator.attrgetter(f)) for f in cls._fields]
    cls.of = classmethod(lambda c, out: c(*(get(out) for get in getters)))

    def fill(c: Any, fn: Callable[..., Any], *args: Any) -> Any:
        out = raw_cls()
        fn(*args, out)
        return c.of(out)

    cls.fill = classmethod(fill)
    return cls

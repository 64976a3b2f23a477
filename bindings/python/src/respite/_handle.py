"""Ownership of a raw handle.

An object keeps its handle in an ``Owned``; every call takes a local
reference to it first. ``close()`` swaps in ``CLOSED`` (whose pointer is
None, which the core answers with "<handle> is closed"), so a call that is
running in another thread keeps the handle alive until it returns and the
handle is freed by the last reference: closing never frees memory that a
running call still uses, and never crashes. Hence ``(own := self._own).ptr``:
``own`` keeps the handle alive for a call that may run without the GIL.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, TypeVar, cast

from . import _respite_swig as _c


class Owned(_c._OwnedSlots):
    #: from the C base (ext/gate_handle.c), read there: ``addr``, and ``_fast``,
    #: a gate handle's fast path (ext/fast_path.c), made by its first call in C
    __slots__ = ("ptr", "_free")

    def __init__(self, ptr: Any, free: Optional[Callable[[Any], None]]) -> None:
        self.ptr = ptr
        #: the handle's address as an int, for the C fast path (0 when closed)
        self.addr = int(ptr) if ptr is not None else 0
        self._free = free

    def __del__(self) -> None:
        free, ptr = self._free, self.ptr
        self._free = None
        self.ptr = None
        if free is not None and ptr is not None:
            free(ptr)


#: the owner of a closed object: a NULL handle for the core
CLOSED = Owned(None, None)


def optional(handle: Optional["OwnsHandle"]) -> Owned:
    """The handle of an optional argument: None is CLOSED (NULL, "none" to the core)."""
    return CLOSED if handle is None else handle._handle()


_H = TypeVar("_H", bound="OwnsHandle")
_T = TypeVar("_T")


def reader(fn: Callable[[Any], _T], doc: str = "") -> _T:
    """A read-only property answering ``fn(handle)``."""
    return cast(_T, property(lambda self: fn((own := self._handle()).ptr), doc=doc))


class OwnsHandle:
    """What every object that owns a handle in ``self._own`` shares:
    ``close()``, ``closed``, ``with`` (which closes it on the way out) and,
    for one made from settings (``self._settings``), ``settings``."""

    __slots__ = ()
    _own: Owned
    _settings: Dict[str, Any]
    #: the core's kind (RESPITE_HANDLE_*) of a handle refused here once closed,
    #: where the core takes NULL as "none" or answers it quietly
    _KIND: Optional[int] = None

    def close(self) -> Any:
        """Frees the handle (once no call is running); later use raises ClosedError."""
        self._own = CLOSED  # type: ignore[misc]  # every subclass has the slot

    def _handle(self) -> Owned:
        """The live handle; closed, for a class with a _KIND: the core's ClosedError."""
        own = self._own
        if own is CLOSED and self._KIND is not None:
            _c.respite_closed(self._KIND)
        return own

    @property
    def settings(self) -> Dict[str, Any]:
        """Every setting's value, defaults and profile included."""
        return dict(self._settings)

    @property
    def closed(self) -> bool:
        return self._own is CLOSED

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

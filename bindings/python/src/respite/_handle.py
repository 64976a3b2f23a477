"""Ownership of a raw handle.

An object keeps its handle in an ``Owned``; every call takes a local
reference to it first. ``close()`` swaps in ``CLOSED`` (whose pointer is
None, which the core answers with "<handle> is closed"), so a call that is
running in another thread keeps the handle alive until it returns and the
handle is freed by the last reference: closing never frees memory that a
running call still uses, and never crashes.
"""
from __future__ import annotations

from typing import Any, Callable, Optional


class Owned:
    __slots__ = ("ptr", "addr", "_free")

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

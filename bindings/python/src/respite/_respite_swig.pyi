# The compiled SWIG module (generated at build time): the C API by its C names.
from typing import Any

def __getattr__(name: str) -> Any: ...

class _GateSlots:
    """Gate's C base (ext/gate_handle.c): the slots the C paths read."""
    __slots__ = ("_own", "_status_of")
    _own: Any
    _status_of: Any

class _OwnedSlots:
    """Owned's C base (ext/gate_handle.c)."""
    __slots__ = ("addr", "_fast")
    addr: int
    _fast: Any

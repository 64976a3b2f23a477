# The compiled SWIG module (generated at build time): the C API by its C names.
from typing import Any

def __getattr__(name: str) -> Any: ...

# The C bases of Gate and Owned (ext/gate_handle.c).
class _GateSlots:
    _own: Any
    _status_of: Any

class _OwnedSlots:
    addr: int
    _fast: Any

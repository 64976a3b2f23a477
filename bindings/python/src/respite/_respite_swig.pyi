# The compiled SWIG module (generated at build time): the C API by its C names.
from typing import Any

def __getattr__(name: str) -> Any: ...

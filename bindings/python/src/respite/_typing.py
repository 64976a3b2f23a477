"""Type variables the decorators share; ParamSpec and Unpack exist only for
type checkers (typing_extensions before 3.10/3.11), never at run time."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypeVar

R = TypeVar("R")
__all__ = ["R"]

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import ParamSpec, Unpack
    else:
        from typing_extensions import ParamSpec, Unpack

    P = ParamSpec("P")
    __all__ += ["P", "Unpack"]

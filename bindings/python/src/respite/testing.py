"""Helpers for your test suite (not for production code)."""
from __future__ import annotations

import contextlib
from typing import Iterator

from . import _respite_swig as _c

__all__ = ["immediate_retries"]


@contextlib.contextmanager
def immediate_retries(on: bool = True) -> Iterator[None]:
    """Within the block every retry is immediate (spec B17): the same
    attempts, delays, decisions and ``before_sleep`` calls, but no wait.
    Process-wide (every thread and event loop); the previous state comes
    back on exit. stamina's ``set_testing``, tenacity's patched sleep."""
    before = _c.respite_testing_immediate_retries()
    _c.respite_testing_set_immediate_retries(1 if on else 0)
    try:
        yield
    finally:
        _c.respite_testing_set_immediate_retries(before)

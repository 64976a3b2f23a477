"""Mistakes `mypy --strict` must reject, one a line from line 5 (tests/test_typing.py)."""
import respite

gate = respite.Gate(recovery_seconds=5)
respite.Gate(failure_to_enter_recovery=3)  # a misspelt setting
respite.Backoff(jitter="fast")  # not one of the choice's words
failures: str = gate.stats().counted_failures  # stats are typed
events: int = gate.events()  # events() is a List[Event], not Any
length: str = gate.protect(len)("ab")  # protect keeps the function's types

"""A misspelt setting and a wrong type: `mypy --strict` must reject both (tests/test_typing.py)."""
import respite

gate = respite.Gate(failure_to_enter_recovery=3)
backoff = respite.Backoff(jitter="fast")

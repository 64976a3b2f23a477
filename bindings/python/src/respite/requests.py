"""requests through a gate: ``session.mount("https://", GateAdapter(gate))``.
Needs requests (``pip install respite-gate[requests]``); ``import respite``
alone never imports it.

Each request (each redirect too) asks the gate first: refused, it raises
TemporarilyUnavailableError (``retry_after``) and nothing is sent. An answer
is reported by its status (5xx and 429 count, other 4xx do not) with its
Retry-After; connection errors and timeouts count as ``transport`` and
propagate unchanged. With ``backoff``, failed attempts are retried after the
core's delay, each through the gate (leave ``max_retries`` at its default of
none, or urllib3 retries inside one attempt); the last answer is returned (a
503 after the last attempt too), and after the last connection error it is raised.
"""
from __future__ import annotations

import time
from typing import Any, Mapping, Optional, Tuple, Union

try:
    import requests
    from requests.adapters import HTTPAdapter
except ImportError as missing:  # pragma: no cover - the test environment has requests
    raise ImportError("respite.requests needs requests: pip install 'respite-gate[requests]'") from missing

from ._library_http import Exchange
from .backoff import Backoff
from .gate import Gate

__all__ = ["GateAdapter"]

# The call did not complete (refused, reset, TLS, timeouts, urllib3's retries
# ran out); anything else an adapter raises (a bad URL or header) is the caller's own.
_TRANSPORT_ERRORS = (requests.ConnectionError, requests.Timeout, requests.exceptions.RetryError)


class GateAdapter(HTTPAdapter):
    """An ``HTTPAdapter`` whose requests go through ``gate``, optionally
    retried by ``backoff``; other keywords are HTTPAdapter's (``pool_maxsize``...)."""

    def __init__(self, gate: Gate, *, backoff: Optional[Backoff] = None, **adapter: Any) -> None:
        self.gate, self.backoff = gate, backoff
        super().__init__(**adapter)

    def send(self, request: requests.PreparedRequest, stream: bool = False,
             timeout: Union[None, float, Tuple[float, float], Tuple[float, None]] = None,
             verify: Union[bool, str] = True,
             cert: Union[None, bytes, str, Tuple[Union[bytes, str], Union[bytes, str]]] = None,
             proxies: Optional[Mapping[str, str]] = None) -> requests.Response:
        exchange = Exchange(self.gate, self.backoff)
        if self.backoff is not None and request.body is not None and not isinstance(request.body, (bytes, str)):
            request.body = _read(request.body)  # a streamed body is kept, so that a retry sends it again
        while True:
            exchange.begin()
            try:
                response = super().send(request, stream=stream, timeout=timeout, verify=verify, cert=cert,
                                        proxies=proxies)
            except Exception as exc:
                delay = exchange.failed(isinstance(exc, _TRANSPORT_ERRORS))
                if delay is None:
                    raise
            else:
                delay = exchange.answered(response.status_code, response.headers.get("Retry-After"))
                if delay is None:
                    return response
                response.close()
            time.sleep(delay)


def _read(body: Any) -> bytes:
    """A file's or an iterable's content, as requests would have streamed it."""
    if hasattr(body, "read"):
        data = body.read()
        return data.encode() if isinstance(data, str) else bytes(data)
    return b"".join(chunk.encode() if isinstance(chunk, str) else bytes(chunk) for chunk in body)

"""httpx through a gate: ``httpx.Client(transport=GateTransport(gate))`` and
``httpx.AsyncClient(transport=AsyncGateTransport(gate))``. Needs httpx
(``pip install respite-gate[httpx]``); ``import respite`` alone never imports it.

Each request (each redirect too) asks the gate first: refused, it raises
TemporarilyUnavailableError (``retry_after``) and nothing is sent. An answer
is reported by its status (5xx and 429 count, other 4xx do not) with its
Retry-After; httpx's transport errors (refused, reset, timeouts) count as
``transport`` and propagate unchanged. With ``backoff``, failed attempts are
retried after the core's delay; the last answer is returned (a 503 after the
last attempt too), and after the last transport error it is raised.
"""
from __future__ import annotations

import asyncio
import time
from typing import Optional

try:
    import httpx
except ImportError as missing:  # pragma: no cover - the test environment has httpx
    raise ImportError("respite.httpx needs httpx: pip install 'respite-gate[httpx]'") from missing

from ._library_http import Exchange
from .backoff import Backoff
from .gate import Gate

__all__ = ["AsyncGateTransport", "GateTransport"]


def _is_transport(exc: Exception) -> bool:
    # A URL httpx cannot send and a request it cannot write are the caller's own.
    return isinstance(exc, httpx.TransportError) and not isinstance(
        exc, (httpx.UnsupportedProtocol, httpx.LocalProtocolError))


class GateTransport(httpx.BaseTransport):
    """A transport that sends through ``transport`` (default: a new
    ``httpx.HTTPTransport()``, closed with this one) when ``gate`` admits the
    request, optionally retried by ``backoff``."""

    def __init__(self, gate: Gate, transport: Optional[httpx.BaseTransport] = None,
                 backoff: Optional[Backoff] = None) -> None:
        self.gate, self.backoff = gate, backoff
        self.transport = transport if transport is not None else httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        exchange = Exchange(self.gate, self.backoff)
        if self.backoff is not None:
            request.read()  # a streamed body is kept, so that a retry sends it again
        while True:
            exchange.begin()
            try:
                response = self.transport.handle_request(request)
            except Exception as exc:
                delay = exchange.failed(_is_transport(exc))
                if delay is None:
                    raise
            else:
                delay = exchange.answered(response.status_code, response.headers.get("Retry-After"))
                if delay is None:
                    return response
                response.close()
            time.sleep(delay)

    def close(self) -> None:
        self.transport.close()


class AsyncGateTransport(httpx.AsyncBaseTransport):
    """:class:`GateTransport` for ``httpx.AsyncClient``, over ``transport``
    (default ``httpx.AsyncHTTPTransport()``); waits with ``asyncio.sleep``.
    Asking the gate never blocks. A cancelled request reports nothing (G10)."""

    def __init__(self, gate: Gate, transport: Optional[httpx.AsyncBaseTransport] = None,
                 backoff: Optional[Backoff] = None) -> None:
        self.gate, self.backoff = gate, backoff
        self.transport = transport if transport is not None else httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        exchange = Exchange(self.gate, self.backoff)
        if self.backoff is not None:
            await request.aread()
        while True:
            exchange.begin()
            try:
                response = await self.transport.handle_async_request(request)
            except Exception as exc:
                delay = exchange.failed(_is_transport(exc))
                if delay is None:
                    raise
            else:
                delay = exchange.answered(response.status_code, response.headers.get("Retry-After"))
                if delay is None:
                    return response
                await response.aclose()
            await asyncio.sleep(delay)

    async def aclose(self) -> None:
        await self.transport.aclose()

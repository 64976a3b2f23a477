"""HTTP through the gate (spec sections 5 and 6), with the core's libcurl
module: a request :class:`Client` and a background :class:`Sender`.

Every network wait happens in C without the GIL, so other Python threads
run during a slow request, a flush or a close.
"""
from __future__ import annotations

import json as _json
import os
import threading
import weakref
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _respite_swig as _c
from . import _events
from ._handle import CLOSED, Owned, OwnsHandle, optional
from ._outcome import outcome_from_code
from .generated.tables import Outcome
from ._settings import new_with_settings, settings_table
from .generated.structs import Event, SenderStats, fill_struct
from .backoff import Backoff
from .gate import Gate
from .policy import Policy

if TYPE_CHECKING:
    from .generated.settings import ClientSettings, GateSettings, SenderOptions
    from ._typing import Unpack

Body = Union[bytes, bytearray, memoryview, str, None]
Headers = Union[Mapping[str, str], Iterable[Tuple[str, str]], str, None]


def _header_text(headers: Headers) -> Optional[str]:
    """``{"Accept": "text/plain"}`` -> ``"Accept: text/plain"`` lines. The
    core checks every line (C2). A line break inside a name or value becomes
    two CRs, which the core refuses as a malformed line, so a value can never
    smuggle in a header of its own."""
    if headers is None:
        return None
    if isinstance(headers, str):
        return headers
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return "\n".join(f"{name}: {value}".replace("\n", "\r\r") for name, value in pairs)


class ResponseHeaders:
    """The final answer's headers, looked up by name (case-insensitive; the
    last one wins when repeated). The core keeps no list, so a lookup is by
    name only: ``response.headers["Content-Type"]``, ``.get(name)``, ``in``."""

    __slots__ = ("_response",)

    def __init__(self, response: "Response") -> None:
        self._response = response

    def get(self, name: str, default: Optional[str] = None) -> Optional[str]:
        value = _c.respite_response_header((own := self._response._handle()).ptr, name)
        return default if value is None else value

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


class Response(OwnsHandle):
    """One HTTP call's result (C8): also a failed call (``outcome`` says
    how; ``status`` is 0 when the transport failed and ``error`` says why).
    A call the gate refused raises TemporarilyUnavailableError instead.
    ``close()`` frees its headers; the other fields stay readable."""

    __slots__ = ("_own", "status", "body", "error", "retry_after", "attempts", "elapsed", "_outcome",
                 "__weakref__")
    _KIND = _c.RESPITE_HANDLE_RESPONSE

    def __init__(self, ptr: Any) -> None:
        self._own = Owned(ptr, _c.respite_response_free)
        self.status: int = _c.respite_response_status(ptr)                #: 0 when the transport failed
        self.body: bytes = _c.respite_response_body(ptr) or b""
        self.error: str = _c.respite_response_error(ptr) or ""              #: transport error text
        self.retry_after: float = _c.respite_response_retry_after(ptr)      #: Retry-After seconds (0: none)
        self.attempts: int = _c.respite_response_attempts(ptr)              #: attempts made, retries included
        self.elapsed: float = _c.respite_response_elapsed_seconds(ptr)      #: seconds, sleeps included
        self._outcome = outcome_from_code(_c.respite_response_outcome(ptr))

    @property
    def outcome(self) -> Outcome:
        """``success``, ``request_error``, ``throttled``, ``server_error``,
        ``transport``, or ``unusable`` after :meth:`Client.report_unusable`."""
        own = self._own
        if own is not CLOSED:
            self._outcome = outcome_from_code(_c.respite_response_outcome(own.ptr))
        return self._outcome

    @property
    def ok(self) -> bool:
        """The call succeeded (a 2xx/3xx answer not reported unusable)."""
        return self.outcome is Outcome.SUCCESS

    @property
    def headers(self) -> ResponseHeaders:
        return ResponseHeaders(self)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return _json.loads(self.body)

    def __repr__(self) -> str:
        what = f"status {self.status}" if self.status else f"transport failure: {self.error}"
        return f"<respite.Response {what}, {self.outcome.value}, {self.attempts} attempt(s)>"


class CancelToken(OwnsHandle):
    """Ends the calls made with it (C10): after ``cancel()``, from any
    thread, a :meth:`Client.request` given ``cancel=token`` returns within
    100 ms (from the transfer or a sleep between attempts) by raising
    CancelledError, and its attempt in flight counts nothing against the
    service (G19). A token already cancelled ends a call before the gate is
    asked. Once cancelled it stays cancelled; one token may serve many calls."""

    __slots__ = ("_own", "__weakref__")
    _KIND = _c.RESPITE_HANDLE_CANCEL_TOKEN

    def __init__(self) -> None:
        self._own = Owned(_c.respite_cancel_token_new(), _c.respite_cancel_token_free)

    def cancel(self) -> None:
        """Cancels every call made with the token, now and later (a second cancel is a no-op)."""
        _c.respite_cancel_token_cancel(self._own.ptr)

    @property
    def cancelled(self) -> bool:
        return _c.respite_cancel_token_cancelled(self._own.ptr) == 1


class Client(OwnsHandle):
    """HTTP calls through an optional gate, with retries by an optional
    back-off (section 6). Settings: ``timeout_seconds`` (per attempt) and
    ``user_agent``. The client holds the gate and back-off in the core, so
    they may be closed in any order. Safe to share between threads."""

    __slots__ = ("_own", "_gate", "gate", "backoff", "_settings", "__weakref__")

    def __init__(self, *, gate: Optional[Gate] = None, backoff: Optional[Backoff] = None,
                 **settings: Unpack[ClientSettings]) -> None:
        self._own = CLOSED
        self.gate, self.backoff = gate, backoff
        gate_own = optional(gate)  # alive for the call
        backoff_own = optional(backoff)
        self._settings, self._own = new_with_settings(
            lambda raw: _c.respite_client_new(raw, gate_own.ptr, backoff_own.ptr), _c.respite_client_free,
            ("client", settings, "client"))
        self._gate = Owned(gate_own.ptr, None)  # the client's reference keeps it valid

    def request(self, method: str, url: str, headers: Headers = None, body: Body = None, *,
                cancel: Optional[CancelToken] = None) -> Response:
        """One call: ``method`` ("GET", "POST", ...), ``headers`` as a mapping,
        pairs or "Name: value" lines, ``body`` as bytes or str (UTF-8).
        Returns the last attempt's Response, also for an error status or a
        transport failure. Raises TemporarilyUnavailableError (with
        ``retry_after``) when the gate refuses, without any network I/O, and
        CancelledError once ``cancel`` (a :class:`CancelToken`) is cancelled."""
        own = self._own  # alive for the call, which runs without the GIL; so is the token's
        try:
            if cancel is None:
                return Response(_c.respite_client_request(own.ptr, method, url, _header_text(headers), body))
            if not isinstance(cancel, CancelToken):
                raise TypeError(f"cancel must be a respite.CancelToken or None, not {type(cancel).__name__}")
            token = cancel._handle()
            return Response(_c.respite_client_request_with(own.ptr, method, url, _header_text(headers), body,
                                                           token.ptr))
        finally:
            self._poll_gate(own)

    def get(self, url: str, headers: Headers = None, *, cancel: Optional[CancelToken] = None) -> Response:
        return self.request("GET", url, headers, cancel=cancel)

    def post(self, url: str, body: Body = None, headers: Headers = None, *,
             cancel: Optional[CancelToken] = None) -> Response:
        return self.request("POST", url, headers, body, cancel=cancel)

    def put(self, url: str, body: Body = None, headers: Headers = None, *,
            cancel: Optional[CancelToken] = None) -> Response:
        return self.request("PUT", url, headers, body, cancel=cancel)

    def delete(self, url: str, headers: Headers = None, *, cancel: Optional[CancelToken] = None) -> Response:
        return self.request("DELETE", url, headers, cancel=cancel)

    def report_unusable(self, response: Response) -> None:
        """C4: the answer was a success but its body cannot be used: the gate
        counts one ``unusable`` failure and ``response.outcome`` becomes
        ``unusable``. Only a success can be reported so; twice is a no-op."""
        try:
            _c.respite_client_report_unusable((own := self._own).ptr, response._handle().ptr)
        finally:
            self._poll_gate(own)
        response.outcome  # refresh the cached outcome

    def _poll_gate(self, own: Owned) -> None:
        if self.gate is not None and own is not CLOSED:  # the client calls into the gate: the one rule holds
            self.gate._poll(self._gate)


# a name that several components have (``name``) goes to the sender, which names its events
_COMPONENT_OF = {info.name: info.component for c in ("queue", "gate", "sender") for info in settings_table(c)}

#: seconds between looks at the sender's events (they are logged as they come)
EVENT_POLL_SECONDS = 0.1


class Sender(OwnsHandle):
    """Sends events in the background (section 5): ``enqueue`` never waits
    for the network; a thread of the core batches, posts and retries them
    through a gate, pausing while the service is failing. Settings by the
    spec's names go to their component: the sender's, the gate's (over
    ``gate_profile``) or the queue's; ``gate`` gives the gate's settings by
    name too, ``name`` included (a shared gate's: ``gate={"name": "collector",
    "shared_path": path}``). ``policy`` (None: ``@default``) settles failed
    events. Events go to the ``respite`` logger as they happen."""

    __slots__ = ("_own", "policy", "_settings", "_log", "_stop", "_poller", "_unsent", "final_stats", "_make",
                 "_headers", "_forked", "__weakref__")

    def __init__(self, url: Optional[str] = None, *, policy: Optional[Policy] = None, headers: Headers = None,
                 gate_profile: str = "usage_sharing", gate: Optional[GateSettings] = None,
                 **settings: Unpack[SenderOptions]) -> None:
        self._own = CLOSED
        self.policy = policy
        self._unsent: Optional[int] = None
        self.final_stats: Optional[SenderStats] = None  #: the statistics when close() finished
        self._log = _events.Log(256)
        values: Dict[str, Any] = dict(settings) if url is None else {**settings, "url": url}
        parts: Dict[str, Dict[str, Any]] = {"sender": {}, "gate": {}, "queue": {}}
        for key, value in values.items():
            # an unknown name goes to the sender, whose settings name it in the core's error
            parts[_COMPONENT_OF.get(key, "sender")][key] = value
        parts["gate"].update(gate or {})
        self._headers: List[Tuple[str, str]] = []
        if headers is not None:
            pairs = headers.items() if isinstance(headers, Mapping) else headers
            if isinstance(pairs, str):
                raise TypeError("headers must be a mapping or (name, value) pairs")
            self._headers = list(pairs)

        def make() -> Tuple[Dict[str, Any], Owned]:
            policy_own = optional(policy)  # the sender takes its own reference
            made = new_with_settings(  # the sender's name last
                lambda queue, gate, sender: _c.respite_sender_new(sender, gate, queue, policy_own.ptr),
                _c.respite_sender_free, ("queue", parts["queue"], "queue"), (gate_profile, parts["gate"], "gate"),
                ("sender", parts["sender"], "sender"))
            for header_name, value in self._headers:
                _c.respite_sender_add_header(made[1].ptr, header_name, value)  # raising drops it: freed
            return made

        self._make = make
        self._settings, self._own = make()
        self._forked = False
        self._start_poller()
        _SENDERS.add(self)

    def _start_poller(self) -> None:
        self._stop = threading.Event()
        self._poller = threading.Thread(target=_poll_events, args=(weakref.ref(self), self._stop),
                                        name=f"respite-sender-events-{self.name}".rstrip("-"), daemon=True)
        self._poller.start()

    def _here(self) -> Owned:
        """This process's sender: in a child forked after it was made, the
        first use makes a new one from the same settings, with an empty
        queue (S15: the parent's is the parent's, with its events)."""
        if self._forked:
            with _FORK_LOCK[0]:
                if self._forked and self._own is not CLOSED:
                    self._own = self._make()[1]  # the parent's is dropped: freeing it here frees nothing (S15)
                    self._start_poller()
                self._forked = False
        return self._own

    def enqueue(self, event: Union[bytes, bytearray, memoryview, str]) -> None:
        """Queues one event (bytes, or str as UTF-8) and returns at once,
        whatever the service does (S1). Raises QueueFullError (capacity under
        drop_newest), TooLargeError, ClosedError after close."""
        _c.respite_sender_enqueue((own := self._here()).ptr, event)  # str: its UTF-8

    def add_header(self, name: str, value: str) -> None:
        """A header for every later request (from the next batch)."""
        _c.respite_sender_add_header((own := self._here()).ptr, name, value)
        self._headers.append((name, value))

    def flush(self, timeout: float = 5.0) -> None:
        """S11: sends what is queued, even below min_entries_per_message, and
        waits up to ``timeout`` seconds until nothing is pending or in flight.
        Raises TemporarilyUnavailableError at once while sending is paused
        (``retry_after``; the events stay queued), TransportError when the
        time runs out, ClosedError after close."""
        try:
            _c.respite_sender_flush((own := self._here()).ptr, timeout)
        finally:
            self._poll()

    def close(self) -> int:
        """S12: stops the sender and returns the number of events not sent.
        While paused it returns at once (nothing more is sent); otherwise it
        drains within close_timeout_seconds. Frees the sender; a second
        close returns the same number; any other use raises ClosedError."""
        own = self._own if self._forked else self._here()  # a child's unused copy: closed as S15 says
        if own is CLOSED and self._unsent is not None:
            return self._unsent
        self._forked = False
        self._unsent = _c.respite_sender_close(own.ptr)
        self.final_stats = fill_struct(SenderStats, _c.respite_sender_stats_get, own.ptr)
        self._stop.set()
        self._poll()
        self._own = CLOSED  # freed once no other thread is inside a call
        return self._unsent

    @property
    def name(self) -> str:
        """The sender's ``name`` setting, the source of its events ("" when unnamed)."""
        return self._settings["name"]

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<respite.Sender{label} to {self._settings.get('url')!r} {'closed' if self.closed else 'open'}>"

    def stats(self) -> SenderStats:
        """S13 statistics (after close: ClosedError; see ``final_stats``)."""
        return fill_struct(SenderStats, _c.respite_sender_stats_get, (own := self._here()).ptr)

    def events(self) -> List[Event]:
        """The events seen since the last call (at most the last 256), oldest
        first. They are also logged as they are seen."""
        self._poll()
        return self._log.pop_all()

    def _poll(self) -> None:
        own = self._own
        if own is not CLOSED and not self._forked:
            self._log.take(_c.respite_sender_next_event, own.ptr)


#: open senders, made again in a forked child on first use (Sender._here)
_SENDERS: "weakref.WeakSet[Sender]" = weakref.WeakSet()
#: one per process: a lock a parent's thread held at the fork stays held in the child
_FORK_LOCK = [threading.Lock()]


def _after_fork_in_child() -> None:
    _FORK_LOCK[0] = threading.Lock()
    for sender in list(_SENDERS):
        sender._forked = True


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _poll_events(ref: "weakref.ReferenceType[Sender]", stop: threading.Event) -> None:
    """The sender's thread is in C; this one logs its events as they come.
    It holds the Sender only weakly, so an abandoned sender is still freed."""
    while not stop.wait(EVENT_POLL_SECONDS):
        sender = ref()
        if sender is None:
            return
        try:
            sender._poll()
        except Exception:  # closed meanwhile: nothing more to log
            return
        finally:
            del sender

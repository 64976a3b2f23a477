"""A small app using every public name of respite, for `mypy --strict`
(tests/test_typing.py). It is type-checked, not run."""
from __future__ import annotations

import asyncio
import math
from typing import Dict, List, Optional, Type

import respite
from respite import (ERRORS_BY_CODE, ERRORS_BY_STATUS, Attempt, Backoff, BackoffSettings, Batch, BeforeSleep, CancelledError,
                     CancelToken, Client, RetryEvent, testing,
                     ClientSettings, ClosedError, FleetSettings, FleetView, Decision, Engine, EngineStats, Event, FailureOn, Gate, GateSettings,
                     GateStats, InternalError, InvalidArgumentError, InvalidPolicyError, InvalidSettingError,
                     InvalidTimeError, NoMemoryError, Outcome, Policy, Problem, Queue, QueueFullError, QueueSettings,
                     QueueStats, RespiteError, Response, ResponseHeaders, Sender, SenderOptions, SenderSettings,
                     SenderStats, SettingInfo, Settings, StatusOf, StorageError, TemporarilyUnavailableError,
                     TooLargeError, TransportError, classify, error_from_fields, failure_of, is_service_failure,
                     outcome_counts, refusal_message, retry, retry_call, settings_table)


class ServiceDown(Exception):
    pass


failure_on: FailureOn = (ServiceDown, ConnectionError)
status_of: StatusOf = lambda response: response.status
gate_settings: GateSettings = {"failures_to_enter_recovery": 5, "recovery_seconds": 30.0, "name": "billing"}
gate = Gate(failure_on=failure_on, **gate_settings)
backoff_settings: BackoffSettings = {"max_attempts": 4, "jitter": "full", "retry_on": ["transport", 503]}
backoff = Backoff(**backoff_settings)


@gate.protect
def lookup(key: str, default: int = 0) -> int:
    return len(key) + default


@gate.protect
async def fetch(path: str) -> bytes:
    await asyncio.sleep(0)
    return path.encode()


@retry(backoff=backoff, gate=gate)
def send(body: bytes) -> int:
    return len(body)


@retry(max_attempts=3, initial_delay_seconds=0.1)
async def send_async(body: bytes) -> int:
    return len(body)


@retry
def plain() -> str:
    return "ok"


def log_retry(event: RetryEvent) -> None:
    print(event.attempt, event.delay + 1.0, event.outcome, event.status, event.exception, event.result)


hook: BeforeSleep = log_retry


@retry(max_attempts=3, max_elapsed_seconds=2.0, before_sleep=hook)
def limited() -> int:
    return 1


def in_a_test() -> int:
    with testing.immediate_retries():
        return limited() + 1


def with_attempt(now: Optional[float]) -> Outcome:
    attempt: Attempt
    with gate.attempt(now) as attempt:
        attempt.set_status(503, retry_after=2.0)
    decision: Decision = gate.check()
    stats: GateStats = gate.stats()
    events: List[Event] = gate.events()
    seen = [event.message for event in events if event.is_warning]
    print(decision.allowed, decision.retry_after, stats.counted_failures, stats.state, seen)
    print(refusal_message(math.inf), outcome_counts(Outcome.THROTTLED), is_service_failure(KeyError()))
    code, status, hint = failure_of(TimeoutError())
    return classify(503)


async def main() -> None:
    body: bytes = await fetch("/a")
    sent: int = await send_async(body)
    async with gate.attempt() as call:
        call.set_outcome("unusable")
    result: int = await gate.call_async(send_async, b"x")
    print(sent, result, lookup("k", default=1), send(b"y"), plain())
    print(retry_call(lambda: 1, max_attempts=2) + 1)


def queues_and_senders() -> None:
    policy = Policy.from_dict({"name": "p", "maximum_capacity": 10, "handlers": []})
    queue_settings: QueueSettings = {"overflow": "drop_newest", "max_bytes": 1 << 20}
    queue = Queue(policy, **queue_settings)
    queue.enqueue(b"event")
    batch: Optional[Batch] = queue.take(10)
    if batch is not None:
        batch.settle_all("delivered")
    queue_stats: QueueStats = queue.stats()
    sender_settings: SenderSettings = {"min_entries_per_message": 10, "gzip": True}
    engine = Engine(queue, gate, **sender_settings)
    engine_stats: EngineStats = engine.stats()
    sender_options: SenderOptions = {"max_bytes": 1000, "min_entries_per_message": 1, "probes": 2}
    sender = Sender("http://127.0.0.1:1/", policy=policy, gate={"recovery_seconds": 2.0}, **sender_options)
    sender_stats: SenderStats = sender.stats()
    print(queue_stats.balanced, engine_stats.closing, sender_stats.gate.state, sender.close())
    client_settings: ClientSettings = {"timeout_seconds": 1.5, "user_agent": "app"}
    fleet_settings: FleetSettings = {"fleet_url": "redis://127.0.0.1:6379", "fleet_quorum": 2}
    print(respite.Settings("fleet", **fleet_settings))
    with Gate(name="billing", fleet=fleet_settings) as fleet_gate:  # a fleet gate (docs/fleet.md)
        view: Optional[FleetView] = fleet_gate.fleet_view()
        print(view.connected if view is not None else "not a fleet gate")
    client = Client(gate=gate, backoff=backoff, **client_settings)
    response: Response = client.get("http://127.0.0.1:1/")
    token = CancelToken()
    token.cancel()
    cancelled: bool = token.cancelled
    try:
        client.post("http://127.0.0.1:1/", b"x", cancel=token)
    except CancelledError:
        print("cancelled", cancelled)
    headers: ResponseHeaders = response.headers
    print(response.status, headers.get("content-type"), response.outcome)


def errors_and_settings() -> None:
    classes: List[Type[RespiteError]] = [CancelledError, ClosedError, InternalError, InvalidArgumentError, InvalidPolicyError,
                                         InvalidSettingError, InvalidTimeError, NoMemoryError, QueueFullError,
                                         StorageError, TemporarilyUnavailableError, TooLargeError, TransportError]
    by_status: Dict[str, Type[RespiteError]] = ERRORS_BY_STATUS
    assert set(classes) == set(by_status.values()) == set(ERRORS_BY_CODE.values())
    problem = Problem("/handlers", "missing")
    err = error_from_fields(5, "bad", problems=[problem])
    try:
        Gate(failures_to_enter_recovery=0)
    except InvalidSettingError as bad:
        print(bad.setting, err)
    except TemporarilyUnavailableError as refused:
        print(refused.retry_after + 1.0)
    info: SettingInfo = next(settings_table("gate"))
    print(info.name, Settings("gate", probes=2).get("probes"), respite.__version__)

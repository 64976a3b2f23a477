import json
import logging

import pytest

import respite
from respite import respite_swig as raw

EDGEHOG = {"name": "edgehog", "maximum_capacity": 3, "retry_times": 1,
           "error_handlers": [{"on": "server_error", "strategy": "retry"},
                              {"on": "client_error", "strategy": "discard"}]}


def test_policy_from_dict_and_accessors():
    p = respite.Policy.from_dict(EDGEHOG)
    assert (p.name, p.maximum_capacity, p.retry_times, p.event_ttl, p.prefetch_count) == ("edgehog", 3, 1, 0, 1)
    assert p.handlers == [("server_error", "retry"), ("client_error", "discard")]
    assert p.strategy_for(503) == "retry" and p.strategy_for(404) == "discard"
    assert p.strategy_for(transport=True) == "retry"  # a transport failure matches as 503
    assert respite.Policy.from_json(p.to_json()) == p
    assert p.to_dict()["error_handlers"][0] == {"on": "server_error", "strategy": "retry"}


def test_builder_gives_the_same_policy():
    built = respite.Policy.build("edgehog", 3, [("server_error", "retry"), ("client_error", "discard")],
                                 retry_times=1)
    assert built == respite.Policy.from_dict(EDGEHOG)
    codes = respite.Policy.build("p", 10, [([404, 410], "discard")])
    assert codes.handlers == [("404,410", "discard")]


def test_every_problem_is_reported_with_the_cores_messages():
    doc = {"name": "", "maximum_capacity": 0, "error_handlers": [], "colour": "red"}
    with pytest.raises(respite.InvalidPolicyError) as info:
        respite.Policy.from_dict(doc)
    problems = info.value.problems
    assert [p.pointer for p in problems] == ["/name", "/maximum_capacity", "/error_handlers", "/colour"]
    with pytest.raises(respite.InvalidPolicyError) as raw_info:
        raw.respite_policy_from_json(json.dumps(doc))
    assert str(raw_info.value) == str(info.value)
    assert raw_info.value.problems == problems  # the one typemap reads them, wherever it raises
    assert str(info.value).endswith("(and 3 more problems)")


def test_overlapping_handlers_and_missing_retry_times():
    doc = {"name": "p", "maximum_capacity": 1,
           "error_handlers": [{"on": "any_error", "strategy": "retry"}, {"on": [500], "strategy": "discard"}]}
    with pytest.raises(respite.InvalidPolicyError) as info:
        respite.Policy.from_dict(doc)
    messages = [p.message for p in info.value.problems]
    assert "must all handle distinct errors." in messages
    assert "must be set if some events are to be retried." in messages


def test_a_document_is_str_or_utf8_bytes_with_its_length():
    text = json.dumps(EDGEHOG)
    assert respite.Policy.from_json(text.encode()) == respite.Policy.from_json(text)
    for bad, says in (('{"name": "\x00"}', "control character 0x0"), (b'{"name": "\xff"}', "not valid UTF-8")):
        with pytest.raises(respite.InvalidPolicyError) as info:
            respite.Policy.from_json(bad)  # the core's syntax errors, not an end of text or a codec error
        assert says in str(info.value) and info.value.problems[0].column == 10
    with pytest.raises(TypeError):
        respite.Policy.from_json(5)


def test_syntax_error_has_line_and_column():
    with pytest.raises(respite.InvalidPolicyError) as info:
        respite.Policy.from_json('{\n  "name": ')
    (problem,) = info.value.problems
    assert problem.pointer == "" and problem.line == 2 and problem.column > 0


def test_closed_policy():
    p = respite.Policy.default()
    assert p.name == "@default" and p.maximum_capacity == 1000
    p.close()
    for call in (lambda: p.name, p.to_json, lambda: p.strategy_for(500), lambda: p.handlers):
        with pytest.raises(respite.ClosedError) as info:
            call()
        assert str(info.value) == "policy is closed"
    with pytest.raises(respite.ClosedError) as info:
        respite.Queue(p)  # not taken as "no policy" (@default)
    assert str(info.value) == "policy is closed"


def test_queue_capacity_and_accounting():
    q = respite.Queue(respite.Policy.from_dict(EDGEHOG))
    for i in range(5):
        q.enqueue(f"e{i}", now=0.0)
    stats = q.stats()
    assert (stats.accepted, stats.pending, stats.dropped_capacity) == (5, 3, 2) and stats.balanced
    with q.take(2, now=1.0) as batch:
        assert batch.payloads == [b"e2", b"e3"] and batch.attempts(0) == 1
        batch.settle(0, "delivered")
        assert batch.settle(1, "retry") == "retry"
    assert q.take(3, now=2.0).payloads == [b"e3", b"e4"]  # the retried event went back to the head
    assert q.stats().balanced


def test_drop_newest_refuses_with_queue_full():
    q = respite.Queue(respite.Policy.build("p", 1, [("any_error", "discard")]), overflow="drop_newest")
    q.enqueue(b"\x00binary\xff")
    with pytest.raises(respite.QueueFullError):
        q.enqueue(b"second")
    assert q.take().payloads == [b"\x00binary\xff"]  # binary-safe


def test_queue_setting_error_and_shutdown():
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Queue(overflow="drop_middle")
    assert info.value.setting == "overflow"
    q = respite.Queue()
    q.shutdown()
    with pytest.raises(respite.ClosedError):
        q.enqueue(b"late")
    q.close()
    with pytest.raises(respite.ClosedError) as info:
        q.enqueue(b"later")
    assert str(info.value) == "queue is closed"


def test_engine_delivers_pauses_and_drains():
    policy = respite.Policy.from_dict(EDGEHOG)
    queue = respite.Queue(policy)
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=5)
    engine = respite.Engine(queue, gate, min_entries_per_message=1, max_entries_per_message=1)
    queue.enqueue("a", now=0.0)
    assert engine.next(now=0.0) == "send"
    batch = engine.take(now=0.0)
    engine.settle(batch, status=503, now=0.0)  # retried; the gate opens
    assert engine.next(now=1.0) == "wait" and engine.wait_seconds == pytest.approx(4.0)
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        engine.take(now=1.0)
    assert info.value.retry_after == pytest.approx(4.0)
    assert engine.next(now=5.0) == "send"
    batch = engine.take(now=5.0)
    assert batch.payloads == [b"a"] and batch.attempts(0) == 2
    engine.settle(batch, status=200, now=5.0)
    engine.shutdown(now=6.0)
    assert engine.next(now=6.0) == "done" and engine.unsent() == 0
    assert queue.stats().delivered == 1
    assert [e.type for e in gate.events()] == ["recovery_started", "probing", "recovered"]
    engine.close()
    with pytest.raises(respite.ClosedError):
        engine.next()


def test_a_rejected_settle_keeps_the_batch_in_flight():
    """S3: the core refuses status 600 and keeps the batch in flight; the
    Batch stays usable, so settling it again unwedges the engine."""
    queue = respite.Queue()
    engine = respite.Engine(queue, respite.Gate(), min_entries_per_message=1)
    queue.enqueue("a", now=0.0)
    batch = engine.take(now=0.0)
    with pytest.raises(respite.InvalidArgumentError):
        engine.settle(batch, status=600, now=0.0)
    assert not batch.closed and batch.payloads == [b"a"]
    engine.settle(batch, status=200, now=0.0)
    assert batch.closed
    queue.enqueue("b", now=1.0)
    assert engine.next(now=1.0) == "send"
    assert engine.take(now=1.0).payloads == [b"b"]
    assert queue.stats().delivered == 1


def test_handles_may_be_closed_in_any_order():
    """The engine holds its queue and gate in the core (and the queue its
    policy): closing the caller's objects first leaves the engine working.
    Closing the queue shuts it down (as in Java), so the engine drains it."""
    policy = respite.Policy.from_dict(EDGEHOG)
    queue = respite.Queue(policy)
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=5)
    engine = respite.Engine(queue, gate, min_entries_per_message=1)
    queue.enqueue("a", now=0.0)
    policy.close()
    gate.close()
    queue.close()
    assert engine.next(now=0.0) == "send"
    batch = engine.take(now=0.0)
    engine.settle(batch, status=503, now=0.0)  # settled by the queue's policy: retry
    assert engine.stats().sends_failed == 1
    assert engine.next(now=1.0) == "done" and engine.unsent() == 1  # shut down while paused (S5)
    engine.close()


def test_engine_events_carry_its_name(caplog):
    caplog.set_level(logging.WARNING, logger="respite")
    queue = respite.Queue()
    gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=60, name="collector")
    engine = respite.Engine(queue, gate, name="usage", min_entries_per_message=1)
    queue.enqueue("a", now=0.0)
    gate.report("transport", now=0.0)  # paused: closing sends nothing
    engine.shutdown(now=1.0)
    assert engine.next(now=1.0) == "done" and engine.unsent() == 1
    (event,) = engine.events()
    assert (event.type, event.source, event.message) == ("unsent_at_close", "usage", "usage: closed with 1 event not sent")
    assert [r.getMessage() for r in caplog.records] == [
        "collector: recovery started: 1 failure within 100s; requests paused for 60s",
        "usage: closed with 1 event not sent"]

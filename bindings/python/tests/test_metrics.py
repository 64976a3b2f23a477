"""respite.metrics (spec section 12): the core's OpenMetrics text parsed by
prometheus_client's strict parser, and the PrometheusCollector on a
CollectorRegistry."""
import math
import time

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics
from prometheus_client.openmetrics.parser import text_string_to_metric_families

import respite
from respite import metrics


def open_gate(name="billing"):
    """Opened for good by two counted failures; one call refused."""
    gate = respite.Gate(name=name, failures_to_enter_recovery=2, recover_never=True)
    for _ in range(2):
        gate.report(respite.Outcome.SERVER_ERROR, permit=gate.acquire())
    with pytest.raises(respite.TemporarilyUnavailableError):
        gate.acquire()
    return gate


def used_queue(name="events"):
    queue = respite.Queue(name=name)
    for payload in ("one", "two", "four"):
        queue.enqueue(payload)
    with queue.take(2) as batch:
        batch.settle(0, "delivered")
        batch.settle(1, "discarded")
    return queue


def families(text):
    return {f.name: f for f in text_string_to_metric_families(text)}


def value(family, **labels):
    matches = [s.value for s in family.samples if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(matches) == 1, (family.name, labels, family.samples)
    return matches[0]


def test_M1_the_text_passes_the_strict_openmetrics_parser():
    gate, queue = open_gate(), used_queue()
    text = metrics.render(gate, queue)
    assert text.endswith("# EOF\n")
    parsed = families(text)
    assert parsed["respite_gate_state"].type == "stateset"
    assert value(parsed["respite_gate_state"], gate="billing", respite_gate_state="open") == 1
    assert value(parsed["respite_gate_state"], gate="billing", respite_gate_state="closed") == 0
    assert parsed["respite_gate_admitted"].type == "counter"
    assert value(parsed["respite_gate_admitted"], gate="billing") == 2
    assert value(parsed["respite_gate_refused"], gate="billing") == 1
    assert parsed["respite_gate_pause_left_seconds"].unit == "seconds"
    assert math.isinf(value(parsed["respite_gate_pause_left_seconds"], gate="billing"))
    dropped = parsed["respite_queue_dropped"]
    assert {s.labels["reason"]: s.value for s in dropped.samples} == {
        "capacity": 0, "expired": 0, "retries_exhausted": 0, "discarded": 1}
    # M5: the reasons add up to the queue's accounting (D9).
    stats = queue.stats()
    assert (value(parsed["respite_queue_accepted"], queue="events") ==
            value(parsed["respite_queue_delivered"], queue="events") + sum(s.value for s in dropped.samples) +
            value(parsed["respite_queue_pending"], queue="events") +
            value(parsed["respite_queue_in_flight"], queue="events") == stats.accepted == 3)
    assert metrics.CONTENT_TYPE == "application/openmetrics-text; version=1.0.0; charset=utf-8"


def test_M7_escaped_label_values_read_back():
    gate = respite.Gate(name='we"ird\\name')
    parsed = families(metrics.render(gate))
    assert value(parsed["respite_gate_admitted"], gate='we"ird\\name') == 0


def test_M6_samples_match_the_text():
    gate = open_gate()
    listed = metrics.samples(gate, prefix="app")
    assert listed[1] == metrics.Sample("app_gate_state", "app_gate_state", "stateset", "",
                                       listed[1].help, {"gate": "billing", "app_gate_state": "open"}, 1.0)
    assert listed[3].name == "app_gate_admitted_total" and listed[3].value == 2
    parsed = families(metrics.render(gate, prefix="app"))
    assert sum(len(f.samples) for f in parsed.values()) == len(listed) == 19


def test_M9_collector_on_a_registry():
    gate, queue = open_gate(), used_queue()
    registry = CollectorRegistry()
    registry.register(metrics.PrometheusCollector(gate, queue))
    text = generate_latest(registry).decode()
    assert 'respite_gate_admitted_total{gate="billing"} 2.0' in text
    assert 'respite_queue_dropped_total{queue="events",reason="discarded"} 1.0' in text
    # The stateset reads as a gauge per state in Prometheus's text format.
    assert 'respite_gate_state{gate="billing",respite_gate_state="open"} 1.0' in text
    assert registry.get_sample_value("respite_queue_pending", {"queue": "events"}) == 1
    # Every scrape reads anew.
    queue.enqueue("five")
    assert registry.get_sample_value("respite_queue_pending", {"queue": "events"}) == 2
    # The OpenMetrics exposition of the registry parses strictly too.
    parsed = families(generate_openmetrics(registry).decode())
    assert value(parsed["respite_gate_counted_failures"], gate="billing") == 2


def test_M9_collector_with_a_sender(server):
    with respite.Sender(url=server.url, name="usage", min_entries_per_message=1) as sender:
        sender.enqueue("a")
        sender.enqueue("b")
        sender.flush(2.0)
        registry = CollectorRegistry()
        registry.register(metrics.PrometheusCollector(sender))
        assert registry.get_sample_value("respite_sender_events_sent_total", {"sender": "usage"}) == 2
        assert registry.get_sample_value("respite_queue_delivered_total", {"queue": "usage"}) == 2
        assert registry.get_sample_value("respite_gate_state", {"gate": "usage", "respite_gate_state": "closed"}) == 1
        assert registry.get_sample_value("respite_sender_sent_bytes_total", {"sender": "usage"}) > 0


def test_M3_bad_handles_are_refused_when_the_collector_is_made():
    with pytest.raises(respite.InvalidArgumentError, match="metrics already have a gate named 'a'"):
        metrics.PrometheusCollector(respite.Gate(name="a"), respite.Gate(name="a"))
    with pytest.raises(TypeError, match="Gate, Queue or Sender"):
        metrics.PrometheusCollector(respite.Policy.default())
    with pytest.raises(respite.InvalidArgumentError, match="prefix must be"):
        metrics.render(prefix="my-app")
    gate = respite.Gate(name="c")
    collector = metrics.PrometheusCollector(gate)
    gate.close()
    with pytest.raises(respite.ClosedError, match="gate is closed"):
        list(collector.collect())


def test_a_snapshot_reads_the_pause_left_of_an_open_gate():
    gate = respite.Gate(name="short", failures_to_enter_recovery=1, recovery_seconds=30)
    gate.report(respite.Outcome.TRANSPORT, permit=gate.acquire())
    time.sleep(0.01)
    left = value(families(metrics.render(gate))["respite_gate_pause_left_seconds"], gate="short")
    assert 29 < left < 30


def test_M9_opentelemetry_observable_instruments():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    gate, queue = open_gate(), used_queue()
    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader]).get_meter("respite")
    assert len(metrics.observe(meter, gate, queue)) == 17 + 10

    def points():
        data = reader.get_metrics_data()
        found = {}
        for metric in data.resource_metrics[0].scope_metrics[0].metrics:
            for point in metric.data.data_points:
                found[(metric.name, tuple(sorted(point.attributes.items())))] = point.value
            found[metric.name] = metric
        return found

    got = points()
    assert got[("respite_gate_admitted", (("gate", "billing"),))] == 2
    assert got["respite_gate_admitted"].data.is_monotonic
    assert got[("respite_gate_state", (("gate", "billing"), ("respite_gate_state", "open")))] == 1
    assert got[("respite_queue_dropped", (("queue", "events"), ("reason", "discarded")))] == 1
    assert got["respite_gate_pause_seconds"].unit == "seconds"
    # OpenTelemetry takes no infinite value: a pause until a reset has no point.
    assert "respite_gate_pause_left_seconds" not in got
    queue.enqueue("five")
    assert points()[("respite_queue_pending", (("queue", "events"),))] == 2

"""Metrics (spec section 12): the core's snapshot of gates, queues and
senders, as OpenMetrics text (:func:`render`, :data:`CONTENT_TYPE`), as
samples (:func:`samples`), as a ``prometheus_client`` collector
(:class:`PrometheusCollector`) and as OpenTelemetry observable instruments
(:func:`observe`). Every metric's name, type, unit, help and
labels come from the core; nothing here names a metric."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Union

from . import _respite_swig as _c
from . import respite_swig as _raw
from ._handle import Owned
from .gate import Gate
from .http import Sender
from .queue import Queue

#: what :func:`render` writes (M1): the Content-Type of a scrape's answer
CONTENT_TYPE: str = _c.respite_metrics_content_type()

Handle = Union[Gate, Queue, Sender]

_SAMPLE_STRUCT: Any = _raw.respite_metric_sample
_ADD = ((Gate, _c.respite_metrics_add_gate), (Queue, _c.respite_metrics_add_queue),
        (Sender, _c.respite_metrics_add_sender))


class Sample(NamedTuple):
    """One sample of a snapshot (respite_metric_sample, M6)."""
    family: str
    name: str
    type: str
    unit: str
    help: str
    labels: Dict[str, str]
    value: float


def _snapshot(handles: "tuple[Handle, ...]", prefix: Optional[str]) -> Owned:
    own = Owned(_c.respite_metrics_new(prefix), _c.respite_metrics_free)
    for handle in handles:
        add = next((fn for cls, fn in _ADD if isinstance(handle, cls)), None)
        if add is None:
            raise TypeError(f"metrics are read from a Gate, Queue or Sender (got {type(handle).__name__})")
        add(own.ptr, (held := handle._handle()).ptr)
        del held
    return own


def _sample(out: Any) -> Sample:
    labels = {out.handle_label: out.handle}
    if out.label:
        labels[out.label] = out.label_value
    return Sample(out.family, out.name, out.type, out.unit, out.help, labels, out.value)


def samples(*handles: Handle, prefix: Optional[str] = None) -> List[Sample]:
    """The samples of a snapshot of ``handles`` taken now, family by family."""
    own = _snapshot(handles, prefix)
    out = _SAMPLE_STRUCT()
    result = []
    for i in range(_c.respite_metrics_sample_count(own.ptr)):
        _c.respite_metrics_sample(own.ptr, i, out)
        result.append(_sample(out))
    return result


def render(*handles: Handle, prefix: Optional[str] = None) -> str:
    """A snapshot of ``handles`` taken now as OpenMetrics text, ending ``# EOF``."""
    own = _snapshot(handles, prefix)  # alive until the text is made
    return str(_c.respite_metrics_render(own.ptr))


class PrometheusCollector:
    """A ``prometheus_client`` collector: every scrape reads the handles anew.
    ``REGISTRY.register(PrometheusCollector(gate, sender))``. Handles are held
    until the collector is unregistered; a closed one makes the scrape raise
    ClosedError."""

    def __init__(self, *handles: Handle, prefix: Optional[str] = None) -> None:
        self._handles = handles
        self._prefix = prefix
        _snapshot(handles, prefix)  # names and kinds checked now, not at the first scrape

    def collect(self) -> Iterator[Any]:
        from prometheus_client.metrics_core import Metric

        metric: Any = None
        for sample in samples(*self._handles, prefix=self._prefix):
            if metric is None or metric.name != sample.family:
                if metric is not None:
                    yield metric
                metric = Metric(sample.family, sample.help, sample.type, sample.unit)
            metric.add_sample(sample.name, sample.labels, sample.value)
        if metric is not None:
            yield metric


def observe(meter: Any, *handles: Handle, prefix: Optional[str] = None) -> List[Any]:
    """OpenTelemetry observable instruments on ``meter`` (an
    ``opentelemetry.metrics.Meter``), one per family of the handles: a counter
    an observable counter, a gauge or a stateset's states an observable
    gauge, with the samples' labels as attributes. Each collection reads the
    handles anew (OpenTelemetry drops an infinite value: a pause until a
    reset has no ``pause_left_seconds`` point). Returns the instruments."""
    from opentelemetry.metrics import Observation

    def callback(family: str) -> Callable[[Any], List[Any]]:
        def read(_options: Any) -> List[Any]:
            return [Observation(s.value, s.labels) for s in samples(*handles, prefix=prefix) if s.family == family]
        return read

    instruments = []
    first: Dict[str, Sample] = {}
    for sample in samples(*handles, prefix=prefix):
        first.setdefault(sample.family, sample)
    for family, sample in first.items():
        create = meter.create_observable_counter if sample.type == "counter" else meter.create_observable_gauge
        instruments.append(create(family, callbacks=[callback(family)], unit=sample.unit, description=sample.help))
    return instruments

package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import org.junit.jupiter.api.Test;
import org.respite.opentelemetry.RespiteInstruments;

/** The OpenTelemetry instruments over the core's samples (spec section 12, M9). */
class OpenTelemetryTest {
    /** "name{label=value,...}" -> value, and name -> its metric, from one collection. */
    private static Map<String, Object> collect(InMemoryMetricReader reader) {
        Map<String, Object> out = new HashMap<>();
        for (MetricData metric : reader.collectAllMetrics()) {
            out.put(metric.getName(), metric);
            var points = metric.getType() == MetricDataType.DOUBLE_SUM ? metric.getDoubleSumData().getPoints()
                                                                        : metric.getDoubleGaugeData().getPoints();
            for (DoublePointData point : points) {
                String labels = point.getAttributes().asMap().entrySet().stream()
                        .map(e -> e.getKey().getKey() + "=" + e.getValue()).sorted().collect(Collectors.joining(","));
                out.put(metric.getName() + "{" + labels + "}", point.getValue());
            }
        }
        return out;
    }

    @Test
    void instrumentsReadTheCoreAtEveryCollection() throws Exception {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
             Gate gate = Gate.builder().name("billing").failuresToEnterRecovery(1).recoverySeconds(30).build();
             Queue queue = Queue.builder().name("events").build()) {
            gate.report(gate.acquire(), Outcome.TRANSPORT);
            Meter meter = provider.get("respite");
            List<AutoCloseable> instruments = RespiteInstruments.register(meter, null, gate, queue);
            assertEquals(17 + 10, instruments.size());
            Map<String, Object> got = collect(reader);
            MetricData admitted = (MetricData) got.get("respite_gate_admitted");
            assertEquals(MetricDataType.DOUBLE_SUM, admitted.getType());
            assertTrue(admitted.getDoubleSumData().isMonotonic());
            assertEquals("checks that admitted a call, probes included", admitted.getDescription());
            assertEquals(1.0, got.get("respite_gate_admitted{gate=billing}"));
            assertEquals(1.0, got.get("respite_gate_state{gate=billing,respite_gate_state=open}"));
            assertEquals("seconds", ((MetricData) got.get("respite_gate_pause_seconds")).getUnit());
            assertEquals(0.0, got.get("respite_queue_pending{queue=events}"));
            queue.enqueue("a");
            assertEquals(1.0, collect(reader).get("respite_queue_pending{queue=events}"));
            for (AutoCloseable instrument : instruments) {
                instrument.close();
            }
        }
    }
}

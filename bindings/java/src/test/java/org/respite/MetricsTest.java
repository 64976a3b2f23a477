package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.respite.micrometer.RespiteMetrics;

/** Metrics (spec section 12): the core's samples and text, and the Micrometer binder (M9). */
class MetricsTest extends FaultServerTest {
    /** Opened for good by two counted failures; one call refused. */
    private static Gate openGate() {
        Gate gate = Gate.builder().name("billing").failuresToEnterRecovery(2).recoverNever(true).build();
        gate.report(gate.acquire(), Outcome.SERVER_ERROR);
        gate.report(gate.acquire(), Outcome.SERVER_ERROR);
        assertThrows(TemporarilyUnavailableException.class, gate::acquire);
        return gate;
    }

    @Test
    void samplesAndTextComeFromTheCore() {
        try (Gate gate = openGate(); Queue queue = Queue.builder().name("events").build()) {
            queue.enqueue("one");
            List<Metrics.Sample> samples = Metrics.samples(null, gate, queue);
            assertEquals(19 + 15, samples.size());
            Metrics.Sample open = samples.get(1);
            assertEquals("respite_gate_state", open.family());
            assertEquals("stateset", open.type());
            assertEquals(Map.of("gate", "billing", "respite_gate_state", "open"), open.labels());
            assertEquals(1.0, open.value());
            Metrics.Sample admitted = samples.get(3);
            assertEquals("respite_gate_admitted_total", admitted.name());
            assertEquals(2.0, admitted.value());
            String text = Metrics.render("app", gate, queue);
            assertTrue(text.contains("app_gate_refused_total{gate=\"billing\"} 1\n"), text);
            assertTrue(text.contains("app_queue_pending{queue=\"events\"} 1\n"), text);
            assertTrue(text.contains("app_gate_pause_left_seconds{gate=\"billing\"} +Inf\n"), text);
            assertTrue(text.endsWith("# EOF\n"), text);
            assertEquals("application/openmetrics-text; version=1.0.0; charset=utf-8", Metrics.CONTENT_TYPE);
        }
    }

    @Test
    void badHandlesAreRefused() {
        try (Gate a = Gate.builder().name("a").build(); Gate b = Gate.builder().name("a").build()) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> new RespiteMetrics(a, b));
            assertTrue(e.getMessage().contains("metrics already have a gate named 'a'"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Metrics.render(null, "a string"));
            assertThrows(InvalidArgumentException.class, () -> Metrics.render("my-app", a));
        }
    }

    @Test
    void micrometerReadsTheCoreAtEveryRead() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Gate gate = openGate(); Queue queue = Queue.builder().name("events").build();
             Sender sender = Sender.builder(server.url).name("usage").minEntriesPerMessage(1).build()) {
            new RespiteMetrics(gate, queue, sender).bindTo(registry);
            FunctionCounter admitted = registry.get("respite_gate_admitted").tag("gate", "billing").functionCounter();
            assertEquals(2.0, admitted.count());
            assertEquals("checks that admitted a call, probes included", admitted.getId().getDescription());
            Gauge open = registry.get("respite_gate_state").tags("gate", "billing", "respite_gate_state", "open").gauge();
            assertEquals(1.0, open.value());
            Gauge pending = registry.get("respite_queue_pending").tag("queue", "events").gauge();
            assertEquals(0.0, pending.value());
            queue.enqueue("a");
            assertEquals(1.0, pending.value());
            FunctionCounter discarded = registry.get("respite_queue_dropped")
                    .tags("queue", "events", "reason", "discarded").functionCounter();
            assertEquals(0.0, discarded.count());
            assertEquals("seconds",
                         registry.get("respite_gate_pause_left_seconds").tag("gate", "billing").gauge().getId().getBaseUnit());

            sender.enqueue("x");
            sender.enqueue("y");
            sender.flush(2.0);
            assertEquals(2.0, registry.get("respite_sender_events_sent").tag("sender", "usage").functionCounter().count());
            assertEquals(2.0, registry.get("respite_queue_delivered").tag("queue", "usage").functionCounter().count());
            queue.close();
            assertTrue(Double.isNaN(pending.value()), "a closed handle reads NaN");
        }
    }
}

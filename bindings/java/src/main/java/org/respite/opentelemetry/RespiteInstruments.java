package org.respite.opentelemetry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;

import org.respite.Metrics;

/**
 * OpenTelemetry observable instruments over the core's metrics (spec section
 * 12, M9): {@code RespiteInstruments.register(meter, null, gate, sender)}.
 * One instrument per family of the handles, named as the family: a counter an
 * observable counter, a gauge or a stateset's states an observable gauge,
 * the samples' labels as attributes; each collection reads the handles anew.
 * Needs io.opentelemetry:opentelemetry-api (an optional dependency of respite).
 */
public final class RespiteInstruments {
    private RespiteInstruments() {
    }

    /**
     * Registers the instruments on meter; prefix null: "respite". Closing what
     * it returns removes them.
     */
    public static List<AutoCloseable> register(Meter meter, String prefix, Object... handles) {
        Map<String, Metrics.Sample> families = new LinkedHashMap<>();
        for (Metrics.Sample sample : Metrics.samples(prefix, handles)) {
            families.putIfAbsent(sample.family(), sample);
        }
        List<AutoCloseable> instruments = new ArrayList<>(families.size());
        for (Metrics.Sample sample : families.values()) {
            String family = sample.family();
            java.util.function.Consumer<ObservableDoubleMeasurement> observe = measurement -> {
                for (Metrics.Sample s : Metrics.samples(prefix, handles)) {
                    if (s.family().equals(family)) {
                        measurement.record(s.value(), attributes(s.labels()));
                    }
                }
            };
            if (sample.type().equals("counter")) {
                var builder = meter.counterBuilder(family).setDescription(sample.help()).ofDoubles();
                if (!sample.unit().isEmpty()) {
                    builder.setUnit(sample.unit());
                }
                instruments.add(builder.buildWithCallback(observe));
            } else {
                var builder = meter.gaugeBuilder(family).setDescription(sample.help());
                if (!sample.unit().isEmpty()) {
                    builder.setUnit(sample.unit());
                }
                instruments.add(builder.buildWithCallback(observe));
            }
        }
        return instruments;
    }

    private static Attributes attributes(Map<String, String> labels) {
        AttributesBuilder builder = Attributes.builder();
        labels.forEach(builder::put);
        return builder.build();
    }
}

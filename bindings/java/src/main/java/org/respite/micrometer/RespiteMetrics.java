package org.respite.micrometer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.respite.ClosedException;
import org.respite.Metrics;

/**
 * A Micrometer {@link MeterBinder} over the core's metrics (spec section 12,
 * M9): {@code new RespiteMetrics(gate, sender).bindTo(registry)}. Each sample
 * of the core becomes a meter named as its family ({@code respite_gate_admitted}),
 * tagged with its labels: a counter a {@link FunctionCounter}, a gauge or a
 * stateset's state a {@link Gauge}. Every read asks the core anew (one
 * handle's snapshot); a closed handle reads NaN, and Micrometer holds the
 * handles weakly (as every binder does its objects). Needs
 * io.micrometer:micrometer-core (an optional dependency of respite).
 */
public final class RespiteMetrics implements MeterBinder {
    private final String prefix;
    private final List<Object> handles;

    /** Gates, queues and senders, with the metric names' prefix "respite". */
    public RespiteMetrics(Object... handles) {
        this(null, handles);
    }

    /** With another prefix than "respite" (null: "respite"). */
    public RespiteMetrics(String prefix, Object... handles) {
        this.prefix = prefix;
        this.handles = List.of(handles);
        Metrics.samples(prefix, handles); // names and kinds checked now, not at the first scrape
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Object handle : handles) {
            List<Metrics.Sample> samples = Metrics.samples(prefix, handle);
            for (int i = 0; i < samples.size(); i++) {
                Metrics.Sample sample = samples.get(i);
                Tags tags = tags(sample.labels());
                int index = i;
                String prefix = this.prefix;
                // Micrometer holds the handle weakly: a meter of a handle that is gone reads NaN.
                if (sample.type().equals("counter")) {
                    FunctionCounter.builder(sample.family(), handle, h -> read(prefix, h, index)).tags(tags)
                            .description(sample.help()).baseUnit(unit(sample)).register(registry);
                } else {
                    Gauge.builder(sample.family(), handle, h -> read(prefix, h, index)).tags(tags)
                            .description(sample.help()).baseUnit(unit(sample)).register(registry);
                }
            }
        }
    }

    private static String unit(Metrics.Sample sample) {
        return sample.unit().isEmpty() ? null : sample.unit();
    }

    private static Tags tags(Map<String, String> labels) {
        List<Tag> tags = new ArrayList<>(labels.size());
        labels.forEach((name, value) -> tags.add(Tag.of(name, value)));
        return Tags.of(tags);
    }

    /** Sample `index` of one handle's snapshot now (the order is the core's table's, fixed); closed: NaN. */
    private static double read(String prefix, Object handle, int index) {
        try {
            return Metrics.samples(prefix, handle).get(index).value();
        } catch (ClosedException closed) {
            return Double.NaN;
        }
    }
}

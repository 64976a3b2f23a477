package org.respite;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.respite.swig.RespiteNative;
import org.respite.swig.respite_metric_sample;

/**
 * Metrics (spec section 12): a snapshot of gates, queues and senders taken by
 * the core, as OpenMetrics text ({@link #render}) or as samples
 * ({@link #samples}), which {@code org.respite.micrometer.RespiteMetrics} maps
 * to Micrometer. Every metric's name, type, unit, help and labels come from
 * the core.
 */
public final class Metrics {
    /** The Content-Type of {@link #render}'s text (M1). */
    public static final String CONTENT_TYPE = RespiteNative.respite_metrics_content_type();

    /** One sample (M6): labels in order, the handle's first. */
    public record Sample(String family, String name, String type, String unit, String help,
                         Map<String, String> labels, double value) {
    }

    private Metrics() {
    }

    /** The handles as OpenMetrics text, read now; prefix null: "respite". */
    public static String render(String prefix, Object... handles) {
        long metrics = snapshot(prefix, handles);
        try {
            return RespiteNative.respite_metrics_render(metrics);
        } finally {
            RespiteNative.respite_metrics_free(metrics);
        }
    }

    /** The handles' samples, read now, family by family; prefix null: "respite". */
    public static List<Sample> samples(String prefix, Object... handles) {
        long metrics = snapshot(prefix, handles);
        respite_metric_sample s = new respite_metric_sample();
        try {
            int count = RespiteNative.respite_metrics_sample_count(metrics);
            List<Sample> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                RespiteNative.respite_metrics_sample(metrics, i, s);
                Map<String, String> labels = new LinkedHashMap<>();
                labels.put(s.getHandle_label(), s.getHandle());
                if (!s.getLabel().isEmpty()) {
                    labels.put(s.getLabel(), s.getLabel_value());
                }
                out.add(new Sample(s.getFamily(), s.getName(), s.getType(), s.getUnit(), s.getHelp(),
                                   Collections.unmodifiableMap(labels), s.getValue()));
            }
            return out;
        } finally {
            s.delete();
            RespiteNative.respite_metrics_free(metrics);
        }
    }

    private static long snapshot(String prefix, Object... handles) {
        long metrics = RespiteNative.respite_metrics_new(prefix);
        try {
            for (Object handle : handles) {
                if (handle instanceof Gate gate) {
                    gate.handle.run(p -> RespiteNative.respite_metrics_add_gate(metrics, p));
                } else if (handle instanceof Queue queue) {
                    queue.handle.run(p -> RespiteNative.respite_metrics_add_queue(metrics, p));
                } else if (handle instanceof Sender sender) {
                    sender.handle.run(p -> RespiteNative.respite_metrics_add_sender(metrics, p));
                } else {
                    throw new IllegalArgumentException("metrics are read from a Gate, Queue or Sender (got "
                            + (handle == null ? "null" : handle.getClass().getSimpleName()) + ")");
                }
            }
            return metrics;
        } catch (RuntimeException e) {
            RespiteNative.respite_metrics_free(metrics);
            throw e;
        }
    }
}

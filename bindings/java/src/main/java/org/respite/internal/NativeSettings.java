package org.respite.internal;

import java.util.Collection;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.stream.Collectors;

import org.respite.swig.RespiteNative;

/** Makes a core settings bag from a component or profile name and values by setting name. */
public final class NativeSettings {
    private NativeSettings() {}

    /** Runs make with a bag of these values (0 when values is null), checked by the core, then frees it. */
    public static <T> T with(String componentOrProfile, Map<String, ?> values, LongFunction<T> make) {
        long settings = values == null ? 0 : RespiteNative.respite_settings_new(componentOrProfile);
        try {
            if (values != null) {
                values.forEach((name, value) -> apply(settings, name, value));
                RespiteNative.respite_settings_validate(settings);
            }
            return make.apply(settings);
        } finally {
            RespiteNative.respite_settings_free(settings);
        }
    }

    private static void apply(long settings, String name, Object value) {
        if (value instanceof Boolean b) {
            RespiteNative.respite_settings_set_boolean(settings, name, b ? 1 : 0);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte) {
            RespiteNative.respite_settings_set_integer(settings, name, ((Number) value).longValue());
        } else if (value instanceof Number n) {
            RespiteNative.respite_settings_set_number(settings, name, n.doubleValue());
        } else if (value instanceof Collection<?> list) {
            String joined = list.stream().map(String::valueOf).collect(Collectors.joining(","));
            RespiteNative.respite_settings_set_text(settings, name, joined);
        } else {
            // null reaches the core as NULL, which names the setting and what it accepts.
            RespiteNative.respite_settings_set_text(settings, name, value == null ? null : value.toString());
        }
    }
}

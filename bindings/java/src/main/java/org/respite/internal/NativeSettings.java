package org.respite.internal;

import java.util.Collection;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.LongFunction;

import org.respite.swig.RespiteNative;

/** Makes a core settings bag from a component or profile name and values by setting name. */
public final class NativeSettings {
    private NativeSettings() {}

    /** Runs make with a settings bag of these values (0 for none when values is null), then frees the bag. */
    public static <T> T with(String componentOrProfile, Map<String, ?> values, LongFunction<T> make) {
        long settings = values == null ? 0 : make(componentOrProfile, values);
        try {
            return make.apply(settings);
        } finally {
            RespiteNative.respite_settings_free(settings);
        }
    }

    /** A native respite_settings pointer (free it with respite_settings_free); the core checks every value. */
    public static long make(String componentOrProfile, Map<String, ?> values) {
        long settings = RespiteNative.respite_settings_new(componentOrProfile);
        try {
            values.forEach((name, value) -> apply(settings, name, value));
            RespiteNative.respite_settings_validate(settings);
            return settings;
        } catch (RuntimeException e) {
            RespiteNative.respite_settings_free(settings);
            throw e;
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
            StringJoiner joined = new StringJoiner(",");
            list.forEach(item -> joined.add(String.valueOf(item)));
            RespiteNative.respite_settings_set_text(settings, name, joined.toString());
        } else {
            // null reaches the core as NULL, which names the setting and what it accepts.
            RespiteNative.respite_settings_set_text(settings, name, value == null ? null : value.toString());
        }
    }
}

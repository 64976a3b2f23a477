package org.respite.internal;

import java.util.Collection;
import java.util.Map;
import java.util.StringJoiner;

import org.respite.swig.RespiteNativeJNI;

/** Makes a core settings bag from a component or profile name and values by setting name. */
public final class NativeSettings {
    private NativeSettings() {}

    /** A native respite_settings pointer (free it with {@link #free}); the core checks every value. */
    public static long make(String componentOrProfile, Map<String, Object> values) {
        long settings;
        try {
            settings = RespiteNativeJNI.respite_settings_new(componentOrProfile);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        }
        try {
            for (Map.Entry<String, Object> entry : values.entrySet()) {
                apply(settings, entry.getKey(), entry.getValue());
            }
            RespiteNativeJNI.respite_settings_validate(settings);
            return settings;
        } catch (RuntimeException e) {
            RespiteNativeJNI.respite_settings_free(settings);
            throw Errors.translate(e);
        }
    }

    public static void free(long settings) {
        RespiteNativeJNI.respite_settings_free(settings);
    }

    private static void apply(long settings, String name, Object value) {
        if (value instanceof Boolean b) {
            RespiteNativeJNI.respite_settings_set_boolean(settings, name, b ? 1 : 0);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte) {
            RespiteNativeJNI.respite_settings_set_integer(settings, name, ((Number) value).longValue());
        } else if (value instanceof Number n) {
            RespiteNativeJNI.respite_settings_set_number(settings, name, n.doubleValue());
        } else if (value instanceof Collection<?> list) {
            StringJoiner joined = new StringJoiner(",");
            list.forEach(item -> joined.add(String.valueOf(item)));
            RespiteNativeJNI.respite_settings_set_text(settings, name, joined.toString());
        } else if (value instanceof Enum<?> e) {
            RespiteNativeJNI.respite_settings_set_text(settings, name, e.toString());
        } else {
            // null reaches the core as NULL, which names the setting and what it accepts.
            RespiteNativeJNI.respite_settings_set_text(settings, name, value == null ? null : value.toString());
        }
    }
}

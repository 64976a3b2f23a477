package org.respite;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What every builder shares: values by the spec's setting names, checked by
 * the core when {@code build()} is called (an {@link InvalidSettingException}
 * naming the setting and what it accepts).
 */
public abstract class SettingsBuilder<B extends SettingsBuilder<B>> {
    final Map<String, Object> values = new LinkedHashMap<>();

    SettingsBuilder() {}

    /**
     * Sets a setting by its spec name ({@code "failures_to_enter_recovery"}): a
     * Boolean, an integer, a floating-point number, a String, or a Collection
     * (joined with commas, for list settings), or a {@code Duration} for a setting in
     * seconds ({@code set("recovery_seconds", Duration.ofSeconds(30))}).
     */
    @SuppressWarnings("unchecked")
    public B set(String name, Object value) {
        values.put(name, value instanceof Duration d ? Respite.seconds(d) : value);
        return (B) this;
    }

    /** Sets every entry of a map, as {@link #set}. */
    public B setAll(Map<String, ?> settings) {
        settings.forEach(this::set);
        @SuppressWarnings("unchecked")
        B self = (B) this;
        return self;
    }
}

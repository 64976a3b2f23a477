package org.respite;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;

import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNative;

/** Library-wide helpers: the clock, the status table and settings checks (the table itself: {@link SettingsTable}). */
public final class Respite {
    /*
     * HotSpot's System.nanoTime reads CLOCK_MONOTONIC on Linux, the clock of
     * respite_now(); reading it in Java saves a native call on every check.
     * Checked once against the core; if they disagree the core's clock is used.
     */
    private static final boolean NANO_TIME_IS_CORE_CLOCK =
            Math.abs(RespiteNative.respite_now() - System.nanoTime() * 1e-9) < 0.05;

    private Respite() {}

    /** Seconds on the monotonic clock the core uses (respite_now); never the wall clock. */
    public static double now() {
        return NANO_TIME_IS_CORE_CLOCK ? System.nanoTime() * 1e-9 : RespiteNative.respite_now();
    }

    /** A Duration in seconds, as the core takes times (nanosecond precision). */
    public static double seconds(Duration duration) {
        return duration.getSeconds() + duration.getNano() * 1e-9;
    }

    /** Seconds as a Duration, rounded to the nanosecond; an infinite retry_after (recover_never) is the longest Duration. */
    public static Duration duration(double seconds) {
        if (seconds == Double.POSITIVE_INFINITY) {
            return ChronoUnit.FOREVER.getDuration();
        }
        long whole = (long) Math.floor(seconds);
        return Duration.ofSeconds(whole, Math.round((seconds - whole) * 1e9));
    }

    /** The number of status codes of the core (0 is "ok"). */
    public static int statusCount() {
        return RespiteNative.respite_status_count();
    }

    /** The stable name of a status code, e.g. {@code "invalid_setting"}. */
    public static String statusName(int status) {
        return RespiteNative.respite_status_name(status);
    }

    /** The core's one-line description of a status. */
    public static String statusDescription(int status) {
        return RespiteNative.respite_strerror(status);
    }

    /**
     * Checks settings as a builder's build() would, making nothing: values by spec name
     * over the defaults of a component or profile ("gate", "usage_sharing").
     */
    public static void checkSettings(String componentOrProfile, Map<String, ?> values) {
        NativeSettings.with(componentOrProfile, values, settings -> settings);
    }

    /** The default of a setting for a component or profile: a Boolean, Long, Double or String by its type. */
    public static Object defaultSetting(String componentOrProfile, String name) {
        return NativeSettings.with(componentOrProfile, Map.of(),
                settings -> SettingsTable.value(settings, RespiteNative.respite_settings_component(settings), name));
    }
}

package org.respite;

import java.util.Map;

import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_setting_info;

/** Library-wide helpers: the clock and the status table. */
public final class Respite {
    /*
     * HotSpot's System.nanoTime reads CLOCK_MONOTONIC on Linux, the clock of
     * respite_now(); reading it in Java saves a native call on every check.
     * Checked once against the core; if they disagree the core's clock is used.
     */
    private static final boolean NANO_TIME_IS_CORE_CLOCK = sameClock();

    private Respite() {}

    /** Seconds on the monotonic clock the core uses (respite_now); never the wall clock. */
    public static double now() {
        return NANO_TIME_IS_CORE_CLOCK ? System.nanoTime() * 1e-9 : RespiteNative.respite_now();
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
     * Checks settings without making anything: values by spec name applied in
     * order to the defaults of a component or profile ("gate", "backoff",
     * "usage_sharing", ...), then the rules between them. Throws
     * {@link InvalidSettingException} as a builder's build() would.
     */
    public static void checkSettings(String componentOrProfile, Map<String, ?> values) {
        NativeSettings.with(componentOrProfile, values, settings -> settings);
    }

    /**
     * The default of a setting for a component or profile: a Boolean, Long,
     * Double or String by the setting's type.
     */
    public static Object defaultSetting(String componentOrProfile, String name) {
        return NativeSettings.with(componentOrProfile, Map.of(), settings -> {
            respite_setting_info info = RespiteNative.respite_setting_find(
                    RespiteNative.respite_settings_component(settings), name);
            int type = info == null ? -1 : info.getType();
            if (type == 3 || type == 4 || type == 5) {
                return RespiteNative.respite_settings_get_text(settings, name);
            }
            double number = RespiteNative.respite_settings_get_number(settings, name);
            return switch (type) {
                case 2 -> number != 0;
                case 0 -> (long) number;
                default -> number;
            };
        });
    }

    private static boolean sameClock() {
        double core = RespiteNative.respite_now();
        double java = System.nanoTime() * 1e-9;
        return Math.abs(core - java) < 0.05;
    }
}

package org.respite.internal;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import org.respite.Event;
import org.respite.swig.RespiteNativeJNI;
import org.respite.swig.respite_event;

/**
 * Forwards events to System.Logger (G18, S6): a warning when sending pauses or
 * a pause grows (the core's respite_event_is_warning), information otherwise.
 */
public final class EventLog {
    public static final EventLog GATE = new EventLog("org.respite.Gate");
    public static final EventLog ENGINE = new EventLog("org.respite.Engine");
    public static final EventLog SENDER = new EventLog("org.respite.Sender");

    private final System.Logger logger;

    private EventLog(String name) {
        this.logger = System.getLogger(name);
    }

    /** An Event from the raw struct. */
    public static Event toEvent(respite_event raw) {
        int type = raw.getType();
        String detail = raw.getDetail();
        return new Event(RespiteNativeJNI.respite_event_type_name(type), raw.getAt(), raw.getFailures(),
                raw.getWindow(), raw.getPause(), raw.getHttp_status(), raw.getCount(), detail == null ? "" : detail,
                RespiteNativeJNI.respite_event_is_warning(type) == 1);
    }

    /** Logs each event, then gives it to the listener (may be null), in order. */
    public void forward(List<Event> events, Consumer<Event> listener) {
        for (Event event : events) {
            log(event);
            if (listener != null) {
                listener.accept(event);
            }
        }
    }

    public void log(Event event) {
        Level level = event.warning() ? Level.WARNING : Level.INFO;
        if (logger.isLoggable(level)) {
            logger.log(level, describe(event));
        }
    }

    /** One line for people; the event's type name stays in it for grepping. */
    public static String describe(Event e) {
        return switch (e.type()) {
            case "recovery_started" -> String.format(Locale.ROOT,
                    "respite: sending paused %s after %d failures within %ss (recovery_started at %s)",
                    pause(e.pause()), e.failures(), number(e.window()), number(e.at()));
            case "recovery_extended" -> String.format(Locale.ROOT,
                    "respite: probe failed, sending paused %s (recovery_extended at %s)", pause(e.pause()),
                    number(e.at()));
            case "probing" -> "respite: pause ended, probing the service (probing at " + number(e.at()) + ")";
            case "recovered" -> "respite: sending resumed (recovered at " + number(e.at()) + ")";
            case "reset" -> "respite: gate reset, sending resumed (reset at " + number(e.at()) + ")";
            case "send_failed" -> "respite: send failed with "
                    + (e.httpStatus() == 0 ? "a transport error" : "status " + e.httpStatus()) + ": " + e.detail()
                    + " (send_failed at " + number(e.at()) + ")";
            case "unsent_at_close" -> "respite: " + e.count() + " events left unsent at close (unsent_at_close at "
                    + number(e.at()) + ")";
            default -> "respite: " + e.type() + " at " + number(e.at());
        };
    }

    private static String pause(double seconds) {
        return Double.isInfinite(seconds) ? "until a reset" : "for " + number(seconds) + "s";
    }

    private static String number(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }
}

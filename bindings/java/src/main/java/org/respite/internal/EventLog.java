package org.respite.internal;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Consumer;

import org.respite.Event;
import org.respite.swig.RespiteNative;
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
                RespiteNativeJNI.respite_event_is_warning(type) == 1, RespiteNative.respite_event_message(raw));
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

    /** The log line: the core's words for the event (G18), the same in every language. */
    public static String describe(Event e) {
        return "respite: " + e.message();
    }
}

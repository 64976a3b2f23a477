package org.respite.internal;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import org.respite.Event;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_event;

/**
 * Takes a handle's waiting events and forwards each to System.Logger - the
 * core's line (respite_event_message) unchanged, a warning when the core says
 * so (respite_event_is_warning), information otherwise - and to a listener.
 */
public final class EventLog {
    private final System.Logger logger;
    private final Consumer<Event> listener;
    private final respite_event buffer = new respite_event();

    public EventLog(String loggerName, Consumer<Event> listener) {
        this.logger = System.getLogger(loggerName);
        this.listener = listener;
    }

    /** Takes every event next(buffer) gives (1 while one was taken), logs it, then gives it to the listener. */
    public synchronized List<Event> drain(ToIntFunction<respite_event> next) {
        List<Event> taken = new ArrayList<>(2);
        while (next.applyAsInt(buffer) == 1) {
            taken.add(toEvent(buffer));
        }
        for (Event event : taken) {
            logger.log(event.warning() ? Level.WARNING : Level.INFO, event.message());
            if (listener != null) {
                listener.accept(event);
            }
        }
        return taken;
    }

    private static Event toEvent(respite_event raw) {
        int type = raw.getType();
        return new Event(RespiteNative.respite_event_type_name(type), raw.getAt(), raw.getFailures(),
                raw.getWindow(), raw.getPause(), raw.getHttp_status(), raw.getCount(), raw.getDetail(),
                RespiteNative.respite_event_is_warning(type) == 1, RespiteNative.respite_event_message(raw),
                raw.getSource());
    }
}

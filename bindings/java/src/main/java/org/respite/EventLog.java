package org.respite;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import org.respite.swig.respite_event;

/**
 * Takes a handle's waiting events and forwards each to System.Logger - the
 * core's line (respite_event_message) unchanged, a warning when the core says
 * so (respite_event_is_warning), information otherwise - and to a listener.
 */
final class EventLog {
    private final System.Logger logger;
    private final Consumer<Event> listener;
    private final respite_event buffer = new respite_event();

    EventLog(String loggerName, Consumer<Event> listener) {
        this.logger = System.getLogger(loggerName);
        this.listener = listener;
    }

    /** Takes every event next(buffer) gives (1 while one was taken), logs it, then gives it to the listener. */
    synchronized List<Event> drain(ToIntFunction<respite_event> next) {
        List<Event> taken = new ArrayList<>(2);
        while (next.applyAsInt(buffer) == 1) {
            taken.add(NativeStats.event(buffer));
        }
        for (Event event : taken) {
            logger.log(event.warning() ? Level.WARNING : Level.INFO, event.message());
            if (listener != null) {
                listener.accept(event);
            }
        }
        return taken;
    }
}

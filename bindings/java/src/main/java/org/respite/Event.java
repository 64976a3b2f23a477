package org.respite;

/**
 * One transition of a gate (G18) or a delivery event, with its time and
 * figures; fields that do not apply to the type are 0 / "".
 *
 * @param type       "recovery_started", "recovery_extended", "probing", "recovered", "reset", ...
 * @param at         when it happened, on the caller's clock (seconds)
 * @param failures   recovery_started: failures in the window
 * @param window     recovery_started: failures_window_seconds
 * @param pause      recovery_started / recovery_extended: the pause in seconds
 * @param httpStatus send_failed: the status (0 for a transport failure)
 * @param count      unsent_at_close: events not sent
 * @param detail     send_failed: the start of the body or the error
 * @param warning    whether loggers show it as a warning (sending paused or a pause grew)
 * @param message    the core's line for it (respite_event_message), logged unchanged by every binding (G18)
 * @param source     the name of the gate, engine or sender it came from; "" when that has none
 */
public record Event(String type, double at, long failures, double window, double pause, int httpStatus, long count,
                    String detail, boolean warning, String message, String source) {}

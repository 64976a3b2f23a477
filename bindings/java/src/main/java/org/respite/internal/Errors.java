package org.respite.internal;

import java.util.List;

import org.respite.ClosedException;
import org.respite.InternalException;
import org.respite.InvalidArgumentException;
import org.respite.InvalidPolicyException;
import org.respite.InvalidSettingException;
import org.respite.InvalidTimeException;
import org.respite.NoMemoryException;
import org.respite.PolicyProblem;
import org.respite.QueueFullException;
import org.respite.RespiteException;
import org.respite.TemporarilyUnavailableException;
import org.respite.TooLargeException;
import org.respite.TransportException;
import org.respite.swig.RespiteNative;

/**
 * Turns the raw layer's errors ("&lt;status_name&gt;: &lt;message&gt;", see swig/respite.i)
 * into the exception of that status. Messages are kept exactly as the core wrote them.
 */
public final class Errors {
    private Errors() {}

    /** The exception for a raw error; a RuntimeException not from the core is returned as it is. */
    public static RuntimeException translate(RuntimeException raw) {
        if (raw instanceof RespiteException) {
            return raw;
        }
        String text = raw.getMessage();
        int colon = text == null ? -1 : text.indexOf(": ");
        if (raw.getClass() != RuntimeException.class || colon <= 0) {
            return raw;
        }
        RespiteException translated = of(text.substring(0, colon), text.substring(colon + 2));
        return translated;
    }

    /** The exception of a status name with the core's message. */
    public static RespiteException of(String status, String message) {
        return switch (status) {
            case "invalid_argument" -> new InvalidArgumentException(message);
            // The core guarantees the setting's name is the message's first word.
            case "invalid_setting" -> new InvalidSettingException(firstWord(message), message);
            case "invalid_time" -> new InvalidTimeException(message);
            case "temporarily_unavailable" -> new TemporarilyUnavailableException(Double.NaN, message);
            case "invalid_policy" -> new InvalidPolicyException(message, List.of());
            case "queue_full" -> new QueueFullException(message);
            case "too_large" -> new TooLargeException(message);
            case "closed" -> new ClosedException(message);
            case "no_memory" -> new NoMemoryException(message);
            case "transport" -> new TransportException(message);
            case "internal" -> new InternalException(message);
            default -> new RespiteException(status, message);
        };
    }

    /** The refusal for retryAfter seconds, with the core's message (G17). */
    public static TemporarilyUnavailableException refusal(double retryAfter) {
        try {
            RespiteNative.respite_refusal_error(retryAfter);
        } catch (RuntimeException raw) {
            String text = raw.getMessage();
            int colon = text.indexOf(": ");
            return new TemporarilyUnavailableException(retryAfter, text.substring(colon + 2));
        }
        throw new IllegalStateException("respite_refusal_error did not fail");
    }

    private static String firstWord(String message) {
        int space = message.indexOf(' ');
        return space < 0 ? message : message.substring(0, space);
    }
}

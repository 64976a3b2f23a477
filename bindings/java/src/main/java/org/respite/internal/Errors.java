package org.respite.internal;

import java.util.List;

import org.respite.ClosedException;
import org.respite.InternalException;
import org.respite.InvalidArgumentException;
import org.respite.InvalidPolicyException;
import org.respite.InvalidSettingException;
import org.respite.InvalidTimeException;
import org.respite.NoMemoryException;
import org.respite.QueueFullException;
import org.respite.RespiteException;
import org.respite.TemporarilyUnavailableException;
import org.respite.TooLargeException;
import org.respite.TransportException;

/** Makes the exception of a core error from its fields; called by the JNI layer (respite_jni.h). */
public final class Errors {
    private Errors() {}

    /** The exception for respite_error's fields: status code, message, setting and retry_after (UTF-8). */
    public static RuntimeException raise(int status, byte[] message, byte[] setting, double retryAfter) {
        return fromError(status, Utf8.string(message), Utf8.string(setting), retryAfter);
    }

    static RespiteException fromError(int status, String message, String setting, double retryAfter) {
        return switch (status) {
            case 1 -> new InvalidArgumentException(message);
            case 2 -> new InvalidSettingException(setting, message);
            case 3 -> new InvalidTimeException(message);
            case 4 -> new TemporarilyUnavailableException(retryAfter, message);
            case 5 -> new InvalidPolicyException(message, List.of());
            case 6 -> new QueueFullException(message);
            case 7 -> new TooLargeException(message);
            case 8 -> new ClosedException(message);
            case 9 -> new NoMemoryException(message);
            case 10 -> new TransportException(message);
            case 11 -> new InternalException(message);
            default -> new RespiteException("unknown", message);
        };
    }
}

package org.respite.internal;

import org.respite.RespiteException;

/** Makes the exception of a core error from its fields; called by the JNI layer (respite_jni.h). */
public final class Errors {
    private Errors() {}

    /** The exception for respite_error's fields: status code, message, setting and retry_after (UTF-8). */
    public static RuntimeException raise(int status, byte[] message, byte[] setting, double retryAfter) {
        return RespiteException.fromError(status, Utf8.string(message), Utf8.string(setting), retryAfter, null);
    }
}

package org.respite.internal;

import java.net.http.HttpResponse;

/**
 * The JDK's HTTP client, where the runtime has it: a jlink image without the
 * java.net.http module never loads this class.
 */
public final class JavaNetHttp {
    private static final boolean PRESENT = ModuleLayer.boot().findModule("java.net.http").isPresent();

    private JavaNetHttp() {}

    /** The status of an {@code java.net.http.HttpResponse}, or -1 when {@code value} is not one. */
    public static int statusOf(Object value) {
        return PRESENT && value != null ? Status.of(value) : -1;
    }

    private static final class Status {
        static int of(Object value) {
            return value instanceof HttpResponse<?> response ? response.statusCode() : -1;
        }
    }
}

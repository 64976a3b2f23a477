package org.respite.internal;

import java.net.http.HttpResponse;

import org.respite.swig.RespiteNative;

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

    /** Whether values of {@code type} are {@code java.net.http.HttpResponse}s. */
    public static boolean isResponse(Class<?> type) {
        return PRESENT && Status.isResponse(type);
    }

    /** The Retry-After hint of an {@code HttpResponse} in seconds (C6, the core's rule), 0 when none. */
    public static double retryAfterOf(Object value) {
        return PRESENT && value != null ? Status.retryAfter(value) : 0;
    }

    private static final class Status {
        static boolean isResponse(Class<?> type) {
            return HttpResponse.class.isAssignableFrom(type);
        }

        static int of(Object value) {
            return value instanceof HttpResponse<?> response ? response.statusCode() : -1;
        }

        static double retryAfter(Object value) {
            if (!(value instanceof HttpResponse<?> response)) {
                return 0;
            }
            // C6 in the core: only 429 and 503 answers carry a hint.
            return response.headers().firstValue("Retry-After")
                    .map(header -> RespiteNative.respite_retry_after_seconds(response.statusCode(), header))
                    .orElse(0.0);
        }
    }
}

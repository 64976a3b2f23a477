package org.respite;

import org.respite.swig.RespiteNative;

/** What happened to one call (spec section 1). The names are the core's. */
public enum Outcome {
    /** A 2xx/3xx answer the caller could use. */
    SUCCESS(0, "success"),
    /** A 4xx other than 429: about the request's own content; does not count. */
    REQUEST_ERROR(1, "request_error"),
    /** 429. */
    THROTTLED(2, "throttled"),
    /** 5xx. */
    SERVER_ERROR(3, "server_error"),
    /** 1xx, or a 2xx/3xx answer the caller could not use. */
    UNUSABLE(4, "unusable"),
    /** The call did not complete: timeout, refused, reset, DNS, TLS. */
    TRANSPORT(5, "transport");

    private static final Outcome[] BY_CODE = values();
    private final int code;
    private final String wireName;

    Outcome(int code, String wireName) {
        this.code = code;
        this.wireName = wireName;
    }

    /** The core's value (respite_outcome). */
    public int code() {
        return code;
    }

    /** The spec's name, e.g. {@code "server_error"}. */
    public String wireName() {
        return wireName;
    }

    @Override
    public String toString() {
        return wireName;
    }

    /** The outcome of a core value. */
    public static Outcome ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new InvalidArgumentException("not an outcome code: " + code);
        }
        return BY_CODE[code];
    }

    /** The outcome with the spec's name; InvalidArgumentException (the core's message) otherwise. */
    public static Outcome fromName(String name) {
        return ofCode(RespiteNative.respite_outcome_from_name(name));
    }

    /** Classifies one call: an HTTP status (100-599) and whether its body could be used. */
    public static Outcome classify(int httpStatus, boolean bodyUsable) {
        return ofCode(RespiteNative.respite_classify(0, httpStatus, bodyUsable ? 1 : 0));
    }

    /** Whether this outcome counts against the service (count_all_failures counts every non-success). */
    public boolean counts(boolean countAllFailures) {
        return RespiteNative.respite_outcome_counts(code, countAllFailures ? 1 : 0) == 1;
    }
}

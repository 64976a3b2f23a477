package org.respite;

/** Status {@code invalid_time}: a time is negative, NaN or infinite. */
public class InvalidTimeException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public InvalidTimeException(String message) {
        super("invalid_time", message);
    }
}

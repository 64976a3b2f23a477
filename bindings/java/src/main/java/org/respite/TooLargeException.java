package org.respite;

/** Status {@code too_large}: the payload is larger than the queue accepts. */
public class TooLargeException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public TooLargeException(String message) {
        super("too_large", message);
    }
}

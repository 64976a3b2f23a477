package org.respite;

/** Status {@code closed}: the object was closed; every later use raises this. */
public class ClosedException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public ClosedException(String message) {
        super("closed", message);
    }
}

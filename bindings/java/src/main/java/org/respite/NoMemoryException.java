package org.respite;

/** Status {@code no_memory}: out of memory. */
public class NoMemoryException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public NoMemoryException(String message) {
        super("no_memory", message);
    }
}

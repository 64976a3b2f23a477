package org.respite;

/** Status {@code transport}: the HTTP call did not complete. */
public class TransportException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public TransportException(String message) {
        super("transport", message);
    }
}

package org.respite;

/** Status {@code internal}: internal error. */
public class InternalException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public InternalException(String message) {
        super("internal", message);
    }
}

package org.respite;

/** Status {@code invalid_argument}: an argument is invalid. */
public class InvalidArgumentException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(String message) {
        super("invalid_argument", message);
    }
}

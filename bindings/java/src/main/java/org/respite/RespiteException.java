package org.respite;

/**
 * The root of every error respite raises. Each status of the core's status
 * table ({@code respite_status_name}) has its own subclass; {@link #getStatus()}
 * is that stable name and {@link #getMessage()} is the core's message, word for
 * word the same in every language.
 */
public class RespiteException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String status;

    public RespiteException(String status, String message) {
        super(message);
        this.status = status;
    }

    /** The status's stable name, e.g. {@code "invalid_setting"}. */
    public String getStatus() {
        return status;
    }
}

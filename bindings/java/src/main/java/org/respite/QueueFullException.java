package org.respite;

/** Status {@code queue_full}: the queue is full. */
public class QueueFullException extends RespiteException {
    private static final long serialVersionUID = 1L;

    public QueueFullException(String message) {
        super("queue_full", message);
    }
}

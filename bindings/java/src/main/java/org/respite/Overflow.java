package org.respite;

/** Queue setting {@code overflow}: what enqueue does when the queue is full (D5). */
public enum Overflow {
    /** Evict the oldest pending events (counted dropped_capacity) so the new one fits. */
    DROP_OLDEST,
    /** Refuse the new event with {@link QueueFullException} (counted refused_full). */
    DROP_NEWEST;

    /** "drop_oldest", "drop_newest": the core's names. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return wireName();
    }
}

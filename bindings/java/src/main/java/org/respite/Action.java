package org.respite;

/** What a sender does next, as {@link DeliveryEngine#next()} says (spec section 5). */
public enum Action {
    /** Take a batch ({@link DeliveryEngine#take()}) and send it. */
    SEND,
    /** The gate refuses (S4): wait {@link DeliveryEngine#waitSeconds()}. */
    WAIT,
    /** Fewer than min_entries_per_message events are queued (S2): wait for events. */
    IDLE,
    /** Closing has finished (S5): stop. */
    DONE;

    /** "send", "wait", "idle", "done". */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

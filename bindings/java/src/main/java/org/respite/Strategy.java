package org.respite;

/** What a delivery policy does with an event whose delivery failed (spec section 4). */
public enum Strategy {
    DISCARD, RETRY;

    /** "discard" / "retry". */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

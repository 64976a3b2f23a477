package org.respite;

/** The gate's states (spec section 2). */
public enum GateState {
    /** Calls are admitted. */
    CLOSED,
    /** Refusing until the pause ends. */
    OPEN,
    /** The pause ended; up to {@code probes} calls are admitted. */
    PROBING;

    /** "closed", "open", "probing". */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

package org.respite;

import java.util.Locale;

/** How a back-off randomises its delays (spec section 3). */
public enum Jitter {
    NONE, FULL, EQUAL, DECORRELATED;

    /** "none", "full", "equal", "decorrelated": the setting's value. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}

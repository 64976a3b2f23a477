package org.respite;

/** Named sets of gate defaults (spec section 2). */
public enum Profile {
    /** N 10, W 100, R 60, M 1, P 1: calls a user is waiting for. */
    CLOUD_REQUEST("cloud_request"),
    /** N 10, W 100, R 2, M 2, Rmax 300, P 1: background sending that backs off further each time. */
    USAGE_SHARING("usage_sharing");

    private final String wireName;

    Profile(String wireName) {
        this.wireName = wireName;
    }

    /** The core's name, e.g. {@code "usage_sharing"}. */
    public String wireName() {
        return wireName;
    }
}

package org.respite;

import org.respite.swig.RespiteNative;

/** Helpers for test suites, not production code. */
public final class Testing {
    private Testing() {}

    /**
     * The core's testing switch (spec B17), process-wide: while on, every retry is immediate
     * (the same attempts, delays, decisions and hook calls, no wait). Returns the previous
     * setting, to restore it after the test (stamina's set_testing).
     */
    public static boolean setImmediateRetries(boolean on) {
        boolean before = immediateRetries();
        RespiteNative.respite_testing_set_immediate_retries(on ? 1 : 0);
        return before;
    }

    /** Whether the testing switch is on. */
    public static boolean immediateRetries() {
        return RespiteNative.respite_testing_immediate_retries() == 1;
    }
}

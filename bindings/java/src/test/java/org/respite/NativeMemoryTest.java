package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.respite.internal.NativeMemory;

/**
 * How the fast path reads the core's memory on this runtime: Unsafe on JDK 17-21,
 * FFM from the multi-release jar on JDK 22+, the direct buffer when forced (the
 * pom runs this class in each setting, naming the expected one in
 * respite.expect.words), and the counts it makes there are the core's.
 */
class NativeMemoryTest {
    @Test
    void theRuntimeUsesTheExpectedAccess() {
        assertEquals(System.getProperty("respite.expect.words", "unsafe"), NativeMemory.kind());
    }

    @Test
    void closedCallsAreDecidedAndCountedThroughIt() {
        try (Gate gate = Gate.builder().build()) {
            long before = gate.fastAdmits();
            for (int i = 0; i < 5; i++) {
                int n = i;
                assertEquals(n, gate.call(() -> n));
            }
            assertEquals(before + 5, gate.fastAdmits(), "decided in Java");
            assertEquals(5, gate.stats().admitted());
            assertEquals(5, gate.stats().reported());
        }
    }
}

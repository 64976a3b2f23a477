package org.respite.internal;

/**
 * Picks how the fast path reads the core's memory on JDK 24 and later (this
 * class replaces src/main/java's in the multi-release jar): the Foreign Function
 * and Memory API, since Unsafe's memory access warns there (JEP 498). The system
 * property {@code respite.words=buffer} forces the direct buffer fallback (tests).
 */
public final class NativeMemory {
    /** The runtime's one implementation. */
    public static final NativeWords WORDS = "buffer".equals(System.getProperty("respite.words"))
            ? new BufferWords() : new SegmentWords();

    private NativeMemory() {}

    /** The implementation in use ("unsafe", "buffer", "segment"): for tests and benchmarks. */
    public static String kind() {
        return WORDS instanceof SegmentWords ? "segment" : "buffer";
    }
}

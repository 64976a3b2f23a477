package org.respite.internal;

/**
 * Picks how the fast path reads the core's memory on JDK 17-23: Unsafe where the
 * runtime has it, else direct buffers. The multi-release jar replaces this class
 * on JDK 24 and later (src/main/java24: the Foreign Function and Memory API).
 * The system property {@code respite.words=buffer} forces the fallback (tests).
 */
public final class NativeMemory {
    /** The runtime's one implementation. */
    public static final NativeWords WORDS = !"buffer".equals(System.getProperty("respite.words")) && unsafe()
            ? new UnsafeWords() : new BufferWords();

    private NativeMemory() {}

    /** The implementation in use ("unsafe", "buffer", "segment"): for tests and benchmarks. */
    public static String kind() {
        return WORDS instanceof UnsafeWords ? "unsafe" : "buffer";
    }

    private static boolean unsafe() {
        try {
            return UnsafeWords.UNSAFE != null;
        } catch (LinkageError missing) { // no jdk.unsupported in this runtime
            return false;
        }
    }
}

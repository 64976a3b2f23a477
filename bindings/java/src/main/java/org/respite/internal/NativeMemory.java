package org.respite.internal;

/**
 * Picks how the fast path reads the core's memory on JDK 17-21: Unsafe where the
 * runtime has it, else a direct buffer. The multi-release jar replaces this class
 * on JDK 22 and later (src/main/java22: the Foreign Function and Memory API).
 * The system property {@code respite.words=buffer} forces the fallback (tests).
 */
public final class NativeMemory {
    private static final boolean UNSAFE = !"buffer".equals(System.getProperty("respite.words")) && unsafe();

    private NativeMemory() {}

    /** The words of {@code size} bytes at {@code address}. */
    public static NativeWords words(long address, int size) {
        return UNSAFE ? new UnsafeWords(address) : new BufferWords(address, size);
    }

    /** The implementation in use ("unsafe", "buffer", "segment"): for tests and benchmarks. */
    public static String kind() {
        return UNSAFE ? "unsafe" : "buffer";
    }

    private static boolean unsafe() {
        try {
            return UnsafeWords.UNSAFE != null;
        } catch (LinkageError missing) { // no jdk.unsupported in this runtime
            return false;
        }
    }
}

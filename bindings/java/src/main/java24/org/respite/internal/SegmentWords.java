package org.respite.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * {@link NativeWords} through FFM (JDK 24+): absolute addresses in one constant
 * segment over the whole address space, so the JIT folds its bounds and liveness
 * checks away (a segment per word, in a field, costs ~3 ns per access). Making it
 * is a restricted call, as loading the JNI library already was on JDK 24+: the
 * module's one native-access warning (or --enable-native-access) covers both.
 */
final class SegmentWords extends NativeWords {
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle(); // (segment, offset)

    private final long address;

    SegmentWords(long address) {
        this.address = address;
    }

    @Override
    public long getAcquire(int offset) {
        return (long) LONG.getAcquire(ALL, address + offset);
    }

    @Override
    public long get(int offset) {
        return ALL.get(ValueLayout.JAVA_LONG, address + offset);
    }

    @Override
    public void set(int offset, long value) {
        ALL.set(ValueLayout.JAVA_LONG, address + offset, value);
    }
}

package org.respite.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * {@link NativeWords} through FFM (JDK 24+): absolute addresses in one constant
 * segment over the whole address space, so its checks are against constants (a
 * segment per word, in a field, cost about 1 ns more per access). Making it
 * is a restricted call, as loading the JNI library already was on JDK 24+: the
 * module's one native-access warning (or --enable-native-access) covers both.
 */
final class SegmentWords extends AbsoluteWords {
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle(); // (segment, offset)

    @Override
    public long getAcquire(Object base, long position) {
        return (long) LONG.getAcquire(ALL, position);
    }

    /* The words are aligned; the unaligned layout only spares a check (less code on the closed path). */
    @Override
    public long get(Object base, long position) {
        return ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, position);
    }

    @Override
    public void set(Object base, long position, long value) {
        ALL.set(ValueLayout.JAVA_LONG_UNALIGNED, position, value);
    }
}

package org.respite.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * {@link NativeWords} through a memory segment (JDK 22+, java.lang.foreign). The
 * segment is made from the JNI direct buffer over the same bytes, so no restricted
 * method (no native-access warning) is needed beyond loading the library.
 */
final class SegmentWords extends NativeWords {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle(); // (segment, offset)

    private final MemorySegment segment;

    SegmentWords(long address, int size) {
        this.segment = MemorySegment.ofBuffer(buffer0(address, size));
    }

    @Override
    public long getAcquire(int offset) {
        return (long) LONG.getAcquire(segment, (long) offset);
    }

    @Override
    public long get(int offset) {
        return segment.get(ValueLayout.JAVA_LONG, offset);
    }

    @Override
    public void set(int offset, long value) {
        segment.set(ValueLayout.JAVA_LONG, offset, value);
    }
}

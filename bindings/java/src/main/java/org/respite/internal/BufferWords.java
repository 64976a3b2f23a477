package org.respite.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** {@link NativeWords} through a VarHandle over a direct buffer: the fallback where Unsafe is missing. */
final class BufferWords extends NativeWords {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer buffer;

    BufferWords(long address, int size) {
        this.buffer = buffer0(address, size);
    }

    @Override
    public long getAcquire(int offset) {
        return (long) LONGS.getAcquire(buffer, offset);
    }

    @Override
    public long get(int offset) {
        return (long) LONGS.get(buffer, offset);
    }

    @Override
    public void set(int offset, long value) {
        LONGS.set(buffer, offset, value);
    }
}

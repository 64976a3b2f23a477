package org.respite.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** {@link NativeWords} through a VarHandle over direct buffers: the fallback where Unsafe is missing. */
final class BufferWords extends NativeWords {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    @Override
    public Object base(long address, int size) {
        return buffer0(address, size);
    }

    @Override
    public long position(long address, int offset) {
        return offset;
    }

    @Override
    public long getAcquire(Object base, long position) {
        return (long) LONGS.getAcquire((ByteBuffer) base, (int) position);
    }

    @Override
    public long get(Object base, long position) {
        return (long) LONGS.get((ByteBuffer) base, (int) position);
    }

    @Override
    public void set(Object base, long position, long value) {
        LONGS.set((ByteBuffer) base, (int) position, value);
    }
}

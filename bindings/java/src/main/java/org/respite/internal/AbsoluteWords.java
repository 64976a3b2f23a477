package org.respite.internal;

/**
 * {@link NativeWords} named by absolute address: no base object, the position is
 * the address itself (Unsafe's and the one FFM segment's way).
 */
abstract class AbsoluteWords extends NativeWords {
    @Override
    public final Object base(long address, int size) {
        return null;
    }

    @Override
    public final long position(long address, int offset) {
        return address + offset;
    }
}

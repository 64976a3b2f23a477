package org.respite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.respite.internal.NativeHandle;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_fast_path;

/**
 * A gate's closed path decided in Java, with no JNI crossing (spec section 2,
 * "The fast-path protocol", K1-K6): the core's published word and this
 * handle's event words are read through VarHandles over direct buffers on
 * their addresses, and each thread counts in a block of its own (K5). Every
 * mask, value and offset comes from the core's respite_fast_path.
 * <p>
 * The gate's memory is kept by a core reference of this object's own. A
 * thread takes its block before it reads anything, under this object's lock;
 * so {@link #close()} can drop the reference at once when no other thread
 * ever took one (the usual single-threaded user), and otherwise leaves it to
 * the Cleaner, once this object is unreachable and no thread can read.
 */
final class FastPath {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer word;
    private final ByteBuffer events;
    private final ByteBuffer cursor;
    private final long admitMask, admitValue, permitMask, successMask, successValue;
    private final int admittedAt, reportedAt;
    private final long gate;
    private final Cleaner.Cleanable reference;
    private final ThreadLocal<ByteBuffer> blocks = ThreadLocal.withInitial(this::newBlock);
    private Thread firstThread; // guarded by this: the first thread given a block
    private boolean otherThreads; // guarded by this: whether another thread was given one
    private boolean released; // guarded by this

    FastPath(long pointer) {
        respite_fast_path fp = new respite_fast_path();
        try {
            RespiteNative.respite_gate_fast_path(pointer, fp);
            word = buffer0(fp.getWord_address(), 8);
            events = buffer0(fp.getEvents_address(), 8);
            cursor = buffer0(fp.getCursor_address(), 8);
            admitMask = fp.getAdmit_mask();
            admitValue = fp.getAdmit_value();
            permitMask = fp.getPermit_mask();
            successMask = fp.getSuccess_mask();
            successValue = fp.getSuccess_value();
            admittedAt = fp.getAdmitted_offset();
            reportedAt = fp.getReported_offset();
            firstThread = Thread.currentThread();
            blocks.set(buffer0(fp.getBlock_address(), fp.getBlock_size()));
        } finally {
            fp.delete();
        }
        gate = RespiteNative.respite_gate_retain(pointer);
        long held = gate;
        reference = NativeHandle.whenUnreachable(this, () -> RespiteNative.respite_gate_free(held));
    }

    /** This thread's block (K5), or null once the reference was dropped: ask the core. */
    ByteBuffer block() {
        return blocks.get();
    }

    /** K2: the permit when the gate is closed (counted in this thread's block), else 0: ask the core. */
    long admit(ByteBuffer block) {
        long w = (long) LONGS.getAcquire(word, 0);
        if ((w & admitMask) != admitValue) {
            return 0;
        }
        add(block, admittedAt);
        return w & permitMask;
    }

    /** K3: true when a success with this permit (0: none) was settled here. */
    boolean success(ByteBuffer block, long permit) {
        long w = (long) LONGS.getAcquire(word, 0);
        if ((w & successMask) != successValue || (permit != 0 && permit != (w & permitMask))) {
            return false;
        }
        add(block, reportedAt);
        return true;
    }

    /** K4: whether events wait for this handle (after a decision made here). */
    boolean eventsWaiting() {
        boolean waiting = (long) LONGS.getOpaque(events, 0) != (long) LONGS.getOpaque(cursor, 0);
        Reference.reachabilityFence(this);
        return waiting;
    }

    /** This thread's count of closed admits decided here (tests: the fast path was taken). */
    long admittedHere() {
        ByteBuffer block = blocks.get();
        return block == null ? 0 : (long) LONGS.getOpaque(block, admittedAt);
    }

    /** At the gate's close: drops the reference now when no other thread can be reading. */
    void close() {
        synchronized (this) {
            if (released || otherThreads || firstThread != Thread.currentThread()) {
                return;
            }
            released = true;
        }
        reference.clean();
    }

    /* Plain access: atomic for an aligned long on a 64-bit JVM, and this thread's alone. */
    private void add(ByteBuffer block, int offset) {
        LONGS.set(block, offset, (long) LONGS.get(block, offset) + 1);
        Reference.reachabilityFence(this); // the block is the gate's memory, kept by this object
    }

    /** This thread's block (K5), or null once the reference was dropped. */
    private synchronized ByteBuffer newBlock() {
        if (released) {
            return null;
        }
        otherThreads = true; // the constructing thread's block is set, never made here
        respite_fast_path fp = new respite_fast_path();
        try {
            RespiteNative.respite_gate_fast_path(gate, fp);
            return buffer0(fp.getBlock_address(), fp.getBlock_size());
        } finally {
            fp.delete();
        }
    }

    private static native ByteBuffer buffer0(long address, int size);
}

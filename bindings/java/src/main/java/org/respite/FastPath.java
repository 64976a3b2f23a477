package org.respite;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;

import org.respite.internal.NativeHandle;
import org.respite.internal.NativeMemory;
import org.respite.internal.NativeWords;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_fast_path;

/**
 * A gate's closed path decided in Java, with no JNI crossing (spec section 2,
 * "The fast-path protocol", K1-K6): the core's published word and this
 * handle's event words are read in place ({@link NativeWords}: Unsafe, or FFM on
 * JDK 22+), and each thread counts in a block of its own (K5). Every mask,
 * value and offset comes from the core's respite_fast_path.
 * <p>
 * The thread that made the gate keeps its block in a field (no ThreadLocal
 * look-up on its calls); other threads find theirs in a ThreadLocal.
 * The gate's memory is kept by a core reference of this object's own. A
 * thread takes its block before it reads anything, under this object's lock;
 * so {@link #close()} can drop the reference at once when no other thread
 * ever took one (the usual single-threaded user), and otherwise leaves it to
 * the Cleaner, once this object is unreachable and no thread can read.
 */
final class FastPath {
    private final NativeWords word;
    private final NativeWords events;
    private final NativeWords cursor;
    private final long admitMask, admitValue, permitMask, successMask, successValue;
    private final int admittedAt, reportedAt;
    private final long gate;
    private final Cleaner.Cleanable reference;
    private final Thread owner; // the thread that made this object
    private NativeWords ownerBlock; // the owner's block; read and written by the owner alone (null: released)
    private final ThreadLocal<NativeWords> blocks = ThreadLocal.withInitial(this::newBlock);
    private boolean otherThreads; // guarded by this: whether another thread was given a block
    private boolean released; // guarded by this

    FastPath(long pointer) {
        respite_fast_path fp = new respite_fast_path();
        try {
            RespiteNative.respite_gate_fast_path(pointer, fp);
            word = NativeMemory.words(fp.getWord_address(), 8);
            events = NativeMemory.words(fp.getEvents_address(), 8);
            cursor = NativeMemory.words(fp.getCursor_address(), 8);
            admitMask = fp.getAdmit_mask();
            admitValue = fp.getAdmit_value();
            permitMask = fp.getPermit_mask();
            successMask = fp.getSuccess_mask();
            successValue = fp.getSuccess_value();
            admittedAt = fp.getAdmitted_offset();
            reportedAt = fp.getReported_offset();
            owner = Thread.currentThread();
            ownerBlock = NativeMemory.words(fp.getBlock_address(), fp.getBlock_size());
        } finally {
            fp.delete();
        }
        gate = RespiteNative.respite_gate_retain(pointer);
        long held = gate;
        reference = NativeHandle.whenUnreachable(this, () -> RespiteNative.respite_gate_free(held));
    }

    /** This thread's block (K5), or null once the reference was dropped: ask the core. */
    NativeWords block() {
        return Thread.currentThread() == owner ? ownerBlock : blocks.get();
    }

    /** K2: the permit when the gate is closed (counted in this thread's block), else 0: ask the core. */
    long admit(NativeWords block) {
        long w = word.getAcquire(0);
        if ((w & admitMask) != admitValue) {
            return 0;
        }
        add(block, admittedAt);
        return w & permitMask;
    }

    /** K3: true when a success with this permit (0: none) was settled here. */
    boolean success(NativeWords block, long permit) {
        long w = word.getAcquire(0);
        if ((w & successMask) != successValue || (permit != 0 && permit != (w & permitMask))) {
            return false;
        }
        add(block, reportedAt);
        return true;
    }

    /** K4: whether events wait for this handle (after a decision made here). */
    boolean eventsWaiting() {
        boolean waiting = events.getAcquire(0) != cursor.getAcquire(0);
        Reference.reachabilityFence(this);
        return waiting;
    }

    /** This thread's count of closed admits decided here (tests: the fast path was taken). */
    long admittedHere() {
        NativeWords block = block();
        long admitted = block == null ? 0 : block.get(admittedAt);
        Reference.reachabilityFence(this);
        return admitted;
    }

    /** At the gate's close: drops the reference now when no other thread can be reading. */
    void close() {
        synchronized (this) {
            if (released || otherThreads || owner != Thread.currentThread()) {
                return;
            }
            released = true;
        }
        ownerBlock = null;
        reference.clean();
    }

    /* Plain access: this thread's alone. */
    private void add(NativeWords block, int offset) {
        block.set(offset, block.get(offset) + 1);
        Reference.reachabilityFence(this); // the block is the gate's memory, kept by this object
    }

    /** A new block (K5) for a thread other than the owner, or null once the reference was dropped. */
    private synchronized NativeWords newBlock() {
        if (released) {
            return null;
        }
        otherThreads = true;
        respite_fast_path fp = new respite_fast_path();
        try {
            RespiteNative.respite_gate_fast_path(gate, fp);
            return NativeMemory.words(fp.getBlock_address(), fp.getBlock_size());
        } finally {
            fp.delete();
        }
    }
}

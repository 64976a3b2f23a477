package org.respite;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import org.respite.internal.NativeHandle;
import org.respite.internal.NativeMemory;
import org.respite.internal.NativeWords;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_fast_path;

/**
 * A gate's closed path decided in Java, with no JNI crossing (spec section 2,
 * "The fast-path protocol", K1-K6): the core's published word and this
 * handle's event words are read in place ({@link NativeWords}: Unsafe, or FFM on
 * JDK 24+), and each thread counts in a block of its own (K5). Every mask,
 * value and offset comes from the core's respite_fast_path.
 * <p>
 * The thread that made the gate keeps its block in a field (no ThreadLocal
 * look-up on its calls); other platform threads find theirs in a ThreadLocal.
 * Blocks stay bounded by the threads alive: a block whose thread has ended goes
 * to the next thread that needs one (its counts continue, K5), and virtual
 * threads, one per task, take none (their calls go to the core: one crossing).
 * The gate's memory is kept by a core reference of this object's own. A
 * thread takes its block before it reads anything, under this object's lock;
 * so {@link #close()} can drop the reference at once when no other thread
 * ever took one (the usual single-threaded user), and otherwise leaves it to
 * the Cleaner, once this object is unreachable and no thread can read.
 */
final class FastPath {
    private static final NativeWords WORDS = NativeMemory.WORDS;
    /** Thread.isVirtual() (JDK 21+), or null before it existed: no virtual threads. */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    /**
     * A thread's counter block (K5): where it adds its closed admits and successes.
     * Its owner alone writes it and the core never does, so the counts are also
     * kept here: each add is one store, no load.
     */
    static final class Block {
        final Object base;
        final long admitted;
        final long reported;
        long admittedCount;
        long reportedCount;

        private Block(respite_fast_path fp) {
            long address = fp.getBlock_address();
            base = WORDS.base(address, fp.getBlock_size());
            admitted = WORDS.position(address, fp.getAdmitted_offset());
            reported = WORDS.position(address, fp.getReported_offset());
        }
    }

    private final Object wordBase, eventsBase, cursorBase;
    private final long word, events, cursor; // positions
    private final long admitMask, admitValue, permitMask, successMask, successValue;
    /* A cursor value this handle had (0 at first): the cursor only grows and never passes the
     * events word, so events equal to it mean none wait, without reading the cursor (K4). */
    private volatile long cursorSeen;
    /** A block and the thread it was last given to (weak: a block keeps no ended thread). */
    private static final class Lease {
        final Block block;
        WeakReference<Thread> thread; // guarded by the FastPath

        Lease(Block block, Thread thread) {
            this.block = block;
            this.thread = new WeakReference<>(thread);
        }
    }

    private final long gate;
    private final Cleaner.Cleanable reference;
    private final Thread owner; // the thread that made this object
    private Block ownerBlock; // the owner's block; read and written by the owner alone (null: released)
    private final ThreadLocal<Block> blocks = ThreadLocal.withInitial(this::newBlock);
    private boolean otherThreads; // guarded by this: whether another thread was given a block
    private final List<Lease> leases = new ArrayList<>(); // guarded by this: every block taken from the core
    private boolean released; // guarded by this

    FastPath(long pointer) {
        respite_fast_path fp = new respite_fast_path();
        try {
            RespiteNative.respite_gate_fast_path(pointer, fp);
            wordBase = WORDS.base(fp.getWord_address(), 8);
            word = WORDS.position(fp.getWord_address(), 0);
            eventsBase = WORDS.base(fp.getEvents_address(), 8);
            events = WORDS.position(fp.getEvents_address(), 0);
            cursorBase = WORDS.base(fp.getCursor_address(), 8);
            cursor = WORDS.position(fp.getCursor_address(), 0);
            admitMask = fp.getAdmit_mask();
            admitValue = fp.getAdmit_value();
            permitMask = fp.getPermit_mask();
            successMask = fp.getSuccess_mask();
            successValue = fp.getSuccess_value();
            owner = Thread.currentThread();
            ownerBlock = new Block(fp);
            leases.add(new Lease(ownerBlock, owner)); // another thread's once the owner has ended
        } finally {
            fp.delete();
        }
        gate = RespiteNative.respite_gate_retain(pointer);
        long held = gate;
        reference = NativeHandle.whenUnreachable(this, () -> RespiteNative.respite_gate_free(held));
    }

    /** This thread's block (K5), or null (a virtual thread, or the reference was dropped): ask the core. */
    Block block() {
        Thread thread = Thread.currentThread();
        return thread == owner ? ownerBlock : isVirtual(thread) ? null : blocks.get();
    }

    /** K2: the permit when the gate is closed (counted in this thread's block), else 0: ask the core. */
    long admit(Block block) {
        long w = WORDS.getAcquire(wordBase, word);
        if ((w & admitMask) != admitValue) {
            return 0;
        }
        add(block.base, block.admitted, ++block.admittedCount);
        return w & permitMask;
    }

    /** K3: true when a success with this permit (0: none) was settled here. */
    boolean success(Block block, long permit) {
        long w = WORDS.getAcquire(wordBase, word);
        if ((w & successMask) != successValue || (permit != 0 && permit != (w & permitMask))) {
            return false;
        }
        add(block.base, block.reported, ++block.reportedCount);
        return true;
    }

    /** K4: whether events wait for this handle (after a decision made here). */
    boolean eventsWaiting() {
        long made = WORDS.getAcquire(eventsBase, events);
        boolean waiting = made != cursorSeen && made != (cursorSeen = WORDS.getAcquire(cursorBase, cursor));
        Reference.reachabilityFence(this);
        return waiting;
    }

    /** The closed admits counted in this thread's block (tests: the fast path was taken). */
    long admittedHere() {
        Block block = block();
        long admitted = block == null ? 0 : WORDS.get(block.base, block.admitted);
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
    private void add(Object base, long position, long count) {
        WORDS.set(base, position, count);
        Reference.reachabilityFence(this); // the block is the gate's memory, kept by this object
    }

    /** How many blocks were taken from the core (tests: bounded by the threads alive). */
    synchronized int blocksTaken() {
        return leases.size();
    }

    /**
     * A block (K5) for a platform thread other than the owner, or null once the reference
     * was dropped: the block of a thread that has ended, else a new one. The ended thread's
     * stores, its counts included, happen before isAlive() returns false (JLS 17.4.4) or its
     * Thread is collected (a live thread is reachable); this lock orders the handoff. The
     * scan is one step per block, once per thread and gate.
     */
    private synchronized Block newBlock() {
        if (released) {
            return null;
        }
        otherThreads = true;
        Thread current = Thread.currentThread();
        for (Lease lease : leases) {
            Thread last = lease.thread.get();
            if (last == null || !last.isAlive()) {
                lease.thread = new WeakReference<>(current);
                return lease.block;
            }
        }
        respite_fast_path fp = new respite_fast_path();
        try {
            RespiteNative.respite_gate_fast_path(gate, fp);
            Block block = new Block(fp);
            leases.add(new Lease(block, current));
            return block;
        } finally {
            fp.delete();
        }
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return IS_VIRTUAL != null && (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable impossible) { // Thread.isVirtual() throws nothing
            throw new AssertionError(impossible);
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException beforeJdk21) {
            return null;
        }
    }
}

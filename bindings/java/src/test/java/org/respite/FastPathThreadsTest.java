package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * The fast path's counter blocks (K5) stay bounded by the threads alive, with
 * counts exact: an ended thread's block goes to the next thread, and virtual
 * threads take none (their calls go to the core).
 */
class FastPathThreadsTest {
    private static final int CALLS = 3;

    /** Calls the gate CALLS times; adds to fastAdmits the closed admits decided in Java. */
    private static Runnable caller(Gate gate, AtomicLong fastAdmits) {
        return () -> {
            long before = gate.fastAdmits();
            for (int c = 0; c < CALLS; c++) {
                gate.call(() -> 1);
            }
            fastAdmits.addAndGet(gate.fastAdmits() - before);
        };
    }

    @Test
    void shortLivedPlatformThreadsReuseTheBlocksOfEndedOnes() throws Exception {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1000).build()) {
            int threads = 2000;
            int atOnce = 4;
            AtomicLong fastAdmits = new AtomicLong();
            for (int started = 0; started < threads; started += atOnce) {
                List<Thread> batch = new ArrayList<>();
                for (int i = 0; i < atOnce; i++) {
                    Thread t = new Thread(caller(gate, fastAdmits));
                    batch.add(t);
                    t.start();
                }
                for (Thread t : batch) {
                    t.join();
                }
            }
            // This thread's block and at most one per thread alive at once: the ended ones' are reused.
            int blocks = gate.fastBlocks();
            assertTrue(blocks >= 2 && blocks <= 1 + atOnce, blocks + " blocks");
            assertEquals((long) threads * CALLS, fastAdmits.get(), "every call decided in Java, reused blocks too");
            assertEquals((long) threads * CALLS, gate.stats().admitted());
            assertEquals((long) threads * CALLS, gate.stats().reported());
        }
    }

    @Test
    void theMakersBlockGoesToAnotherThreadOnceTheMakerEnded() throws Exception {
        Gate[] made = new Gate[1];
        Thread maker = new Thread(() -> {
            made[0] = Gate.builder().failuresToEnterRecovery(1000).build();
            made[0].call(() -> 1);
        });
        maker.start();
        maker.join();
        try (Gate gate = made[0]) {
            AtomicLong fastAdmits = new AtomicLong();
            Thread next = new Thread(caller(gate, fastAdmits));
            next.start();
            next.join();
            assertEquals(1, gate.fastBlocks());
            assertEquals(CALLS, fastAdmits.get());
            assertEquals(1 + CALLS, gate.stats().admitted());
            assertEquals(1 + CALLS, gate.stats().reported());
        }
    }

    @Test
    void theBlockOfACollectedThreadIsReused() throws Exception {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1000).build()) {
            AtomicLong fastAdmits = new AtomicLong();
            Thread first = new Thread(caller(gate, fastAdmits));
            first.start();
            first.join();
            WeakReference<Thread> collected = new WeakReference<>(first);
            first = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (collected.get() != null) {
                assertTrue(System.nanoTime() < deadline, "the ended thread was collected");
                System.gc();
                Thread.sleep(10);
            }
            Thread next = new Thread(caller(gate, fastAdmits));
            next.start();
            next.join();
            assertEquals(2, gate.fastBlocks(), "this thread's and the one the two threads had in turn");
            assertEquals(2 * CALLS, fastAdmits.get());
            assertEquals(2 * CALLS, gate.stats().admitted());
            assertEquals(2 * CALLS, gate.stats().reported());
        }
    }

    /** On JDK 21+ (the test step runs this class on JDK 24+ too); JDK 17-20 have no virtual threads. */
    @Test
    void virtualThreadsTakeNoBlockAndCountExactly() throws Exception {
        ExecutorService virtual = virtualThreadPerTask();
        if (virtual == null) {
            return; // JDK 17-20: the JDK 24+ run of this class is the test
        }
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1000).build()) {
            int tasks = 10_000;
            AtomicLong fastAdmits = new AtomicLong();
            try {
                for (int i = 0; i < tasks; i++) {
                    virtual.execute(caller(gate, fastAdmits));
                }
            } finally {
                virtual.shutdown();
            }
            assertTrue(virtual.awaitTermination(60, TimeUnit.SECONDS), "the virtual threads ended");
            assertEquals(1, gate.fastBlocks(), "only the making thread's block");
            assertEquals(0, fastAdmits.get(), "virtual threads' calls went to the core");
            assertEquals((long) tasks * CALLS, gate.stats().admitted());
            assertEquals((long) tasks * CALLS, gate.stats().reported());
            // A platform thread still takes the fast path.
            Thread platform = new Thread(caller(gate, fastAdmits));
            platform.start();
            platform.join();
            assertEquals(CALLS, fastAdmits.get());
            assertEquals(2, gate.fastBlocks());
        }
    }

    /** Executors.newVirtualThreadPerTaskExecutor() on JDK 21+, else null (this test compiles for 17). */
    private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
        if (Runtime.version().feature() < 21) { // a preview before 21
            return null;
        }
        ExecutorService executor = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                .invoke(null);
        assertNotNull(executor);
        return executor;
    }
}

package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.respite.internal.NativeHandle;

/** close() frees at once, or when the last call inside the core leaves; users of a handle keep their own reference. */
class LifetimeTest {
    @Test
    void closeFreesAtOnceWhenNoCallIsInside() {
        AtomicLong freed = new AtomicLong();
        NativeHandle handle = new NativeHandle(42, freed::set);
        assertEquals(42, (long) handle.apply(p -> p));
        handle.close();
        assertEquals(42, freed.get());
        assertEquals(0, (long) handle.apply(p -> p));
    }

    @Test
    void aCallInsideDelaysTheFreeUntilItLeaves() throws InterruptedException {
        AtomicLong freed = new AtomicLong();
        NativeHandle handle = new NativeHandle(7, freed::set);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        Thread caller = new Thread(() -> handle.run(p -> {
            inside.countDown();
            try {
                leave.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        caller.start();
        inside.await();
        handle.close();
        assertEquals(0, freed.get(), "freed while a call was inside");
        assertTrue(handle.isClosed());
        leave.countDown();
        caller.join();
        assertEquals(7, freed.get());
    }

    @Test
    void callsRacingWithCloseSucceedOrSayClosed() throws InterruptedException {
        for (int round = 0; round < 20; round++) {
            Gate gate = Gate.builder().build();
            AtomicInteger other = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < 2000; i++) {
                        try {
                            long permit = gate.admit();
                            gate.report(permit, Outcome.SUCCESS);
                        } catch (ClosedException closed) {
                            assertEquals("gate is closed", closed.getMessage());
                        } catch (RuntimeException e) {
                            other.incrementAndGet();
                        }
                    }
                });
                threads.add(thread);
                thread.start();
            }
            gate.close();
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(0, other.get());
        }
    }

    @Test
    void anEngineKeepsItsQueueAndGateAfterTheirOwnersClose() {
        Queue queue = Queue.builder().build();
        Gate gate = Gate.builder().build();
        queue.enqueue("a", 1.0);
        try (DeliveryEngine engine = DeliveryEngine.builder(queue, gate).minEntriesPerMessage(1).build()) {
            gate.close();
            queue.close();
            assertEquals(Action.SEND, engine.next(2.0));
            Batch batch = engine.take(2.0);
            assertEquals(List.of("a"), batch.texts());
            engine.settle(batch, 200, 0, 2.0);
            assertEquals(1, engine.stats().eventsSent());
        }
        assertThrows(ClosedException.class, () -> queue.enqueue("b", 3.0));
    }
}

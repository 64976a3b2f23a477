package org.respite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class QueueTest {
    private static Policy retrying(int capacity, int retryTimes) {
        return Policy.builder("test", capacity).handler("any_error", Strategy.RETRY).retryTimes(retryTimes).build();
    }

    @Test
    void bytesAndTextGoThroughUnchanged() {
        try (Queue queue = Queue.builder().build()) {
            byte[] binary = {0, 1, 2, (byte) 0xff, 0, 'x'};
            queue.enqueue(binary, 1.0);
            queue.enqueue("héllo", 2.0);
            assertEquals(2, queue.pending());
            try (Batch batch = queue.take(10, 3.0)) {
                assertEquals(2, batch.size());
                assertArrayEquals(binary, batch.payload(0));
                assertEquals("héllo", batch.text(1));
                assertEquals(List.of("\0\1\2\ufffd\0x", "héllo"), batch.texts());
                assertEquals(1, batch.attempts(0));
                assertEquals(2.0, batch.age(0, 3.0), 1e-12);
                assertNull(batch.disposition(0));
                assertEquals(Disposition.DELIVERED, batch.settle(0, Disposition.DELIVERED));
                assertEquals(Disposition.DELIVERED, batch.disposition(0));
                assertEquals(1, batch.unsettled());
                InvalidArgumentException twice = assertThrows(InvalidArgumentException.class,
                        () -> batch.settle(0, Disposition.DISCARDED));
                assertEquals("event 0 of the batch is already settled (delivered)", twice.getMessage());
                assertEquals("index must be from 0 to 1 (got 2)",
                        assertThrows(InvalidArgumentException.class, () -> batch.attempts(2)).getMessage());
                assertEquals(1, batch.settleAll(Disposition.DISCARDED));
            }
            QueueStats stats = queue.stats();
            assertEquals(2, stats.accepted());
            assertEquals(1, stats.delivered());
            assertEquals(1, stats.discarded());
            assertEquals(0, stats.pending());
            assertEquals(1000, stats.capacity(), "@default holds 1000 events (D8)");
            assertEquals(Overflow.DROP_OLDEST, stats.overflow());
            assertTrue(stats.balanced());
            assertNull(queue.take(1, 4.0), "nothing pending");
        }
    }

    @Test
    void retriedEventsGoBackToTheHeadUntilExhausted() {
        try (Policy policy = retrying(10, 1); Queue queue = Queue.builder(policy).build()) {
            queue.enqueue("a", 0);
            queue.enqueue("b", 0);
            try (Batch batch = queue.take(1, 0)) {
                assertEquals(Disposition.RETRY, batch.settle(0, Disposition.RETRY));
                assertEquals(1, queue.stats().inFlight(), "in flight until the batch is closed");
            }
            try (Batch batch = queue.take(5, 1)) {
                assertEquals(List.of("a", "b"), batch.texts(), "a went back ahead of b (D4)");
                assertEquals(2, batch.attempts(0));
                assertEquals(Disposition.RETRIES_EXHAUSTED, batch.settle(0, Disposition.RETRY),
                        "retry_times 1: two attempts at most (D3)");
                // b is left unsettled: it goes back, its attempt undone (Q5).
            }
            try (Batch batch = queue.take(5, 2)) {
                assertEquals(List.of("b"), batch.texts());
                assertEquals(1, batch.attempts(0));
                batch.settleAll(Disposition.DELIVERED);
            }
            QueueStats stats = queue.stats();
            assertEquals(1, stats.retriesExhausted());
            assertEquals(1, stats.retried());
            assertEquals(1, stats.delivered());
            assertTrue(stats.balanced());
            queue.checkAccounting();
        }
    }

    @Test
    void refusalsAreTheCoresErrorsAndCountedApart() {
        try (Policy policy = retrying(2, 1);
             Queue queue = Queue.builder(policy).overflow(Overflow.DROP_NEWEST).maxBytes(10).build()) {
            queue.enqueue("12345", 0);
            queue.enqueue("1", 0);
            QueueFullException full = assertThrows(QueueFullException.class, () -> queue.enqueue("x", 0));
            assertEquals("the queue is full (2 events, maximum_capacity 2); overflow drop_newest refuses new events",
                    full.getMessage());
            assertEquals("queue_full", full.getStatus());
            TooLargeException large = assertThrows(TooLargeException.class, () -> queue.enqueue("12345678901", 0));
            assertEquals("an event of 11 bytes is larger than max_bytes (10 bytes)", large.getMessage());
            assertEquals("an event must have at least 1 byte (got 0 bytes)",
                    assertThrows(InvalidArgumentException.class, () -> queue.enqueue(new byte[0], 0)).getMessage());
            assertThrows(InvalidArgumentException.class, () -> queue.enqueue((byte[]) null, 0));
            assertThrows(InvalidTimeException.class, () -> queue.enqueue("x", Double.NaN));
            queue.shutdown();
            assertTrue(queue.isShutDown());
            assertEquals("queue is closed", assertThrows(ClosedException.class, () -> queue.enqueue("x", 0))
                    .getMessage());
            QueueStats stats = queue.stats();
            assertEquals(2, stats.accepted());
            assertEquals(1, stats.refusedFull());
            assertEquals(1, stats.refusedTooLarge());
            assertEquals(1, stats.refusedClosed());
            assertEquals(6, stats.pendingBytes());
            assertEquals(10, stats.maxBytes());
            assertTrue(stats.closed());
            try (Batch batch = queue.take(5, 0)) {
                assertEquals(2, batch.settleAll(Disposition.DELIVERED), "a shut-down queue still drains (Q1)");
            }
        }
        try (Queue queue = Queue.builder().overflow(Overflow.DROP_OLDEST).build()) {
            for (int i = 0; i < 1005; i++) {
                queue.enqueue("e" + i, 0);
            }
            assertEquals(5, queue.stats().droppedCapacity());
            try (Batch batch = queue.take(1, 0)) {
                assertEquals("e5", batch.text(0), "the oldest were evicted (D5)");
            }
        }
    }

    @Test
    void invalidSettingsNameTheSetting() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Queue.builder().set("overflow", "sideways").build());
        assertEquals("overflow", e.getSetting());
        assertTrue(e.getMessage().startsWith("overflow "), e.getMessage());
        assertEquals("max_bytes", assertThrows(InvalidSettingException.class,
                () -> Queue.builder().maxBytes(-1).build()).getSetting());
        assertEquals("min_entries_per_message", assertThrows(InvalidSettingException.class,
                () -> Queue.builder().set("min_entries_per_message", 1).build()).getSetting());
    }

    @Test
    void ttlExpiresEvents() {
        try (Policy policy = Policy.builder("ttl", 10).handler("any_error", Strategy.DISCARD).eventTtl(5).build();
             Queue queue = Queue.builder(policy).build()) {
            queue.enqueue("old", 0);
            queue.enqueue("new", 3);
            assertEquals(1, queue.expire(5.0), "age 5 reached event_ttl 5 (D6)");
            assertEquals(1, queue.pending());
            assertEquals(5.0, queue.stats().eventTtl());
        }
    }

    @Test
    void closedQueueAndBatchThrowNeverCrash() {
        Queue queue = Queue.builder().build();
        queue.enqueue("a", 0);
        Batch batch = queue.take(1, 0);
        queue.close();
        queue.close();
        assertTrue(queue.isClosed());
        for (Runnable use : List.<Runnable>of(() -> queue.enqueue("b", 0), queue::pending, queue::stats,
                () -> queue.take(1, 0), queue::shutdown, () -> queue.expire(0), queue::checkAccounting)) {
            assertEquals("queue is closed", assertThrows(ClosedException.class, use::run).getMessage());
        }
        assertEquals("a", batch.text(0), "a batch outlives its queue");
        batch.close();
        batch.close();
        assertEquals("batch is closed", assertThrows(ClosedException.class, () -> batch.payload(0)).getMessage());
        assertEquals(0, batch.size());
        assertThrows(ClosedException.class, () -> batch.settle(0, Disposition.DELIVERED));
    }

    @Test
    void aClosedPolicyIsRefusedNotTakenAsDefault() {
        Policy policy = Policy.defaultPolicy();
        policy.close();
        assertEquals("policy is closed", assertThrows(ClosedException.class,
                () -> Queue.builder(policy).build()).getMessage());
    }

    @Test
    void awaitPendingWakesOnEventsAndShutdown() throws InterruptedException {
        try (Queue queue = Queue.builder().build()) {
            assertFalse(queue.awaitPending(1, 0.01), "times out when nothing comes");
            AtomicReference<Boolean> woke = new AtomicReference<>();
            Thread waiter = new Thread(() -> woke.set(queue.awaitPending(2, 10.0)));
            waiter.start();
            queue.enqueue("a");
            queue.enqueue("b");
            waiter.join(5000);
            assertEquals(Boolean.TRUE, woke.get());

            Thread shut = new Thread(() -> woke.set(queue.awaitPending(100, 10.0)));
            woke.set(null);
            shut.start();
            Thread.sleep(20);
            queue.close(); // shuts down first, which wakes the waiter
            shut.join(5000);
            assertFalse(shut.isAlive());
            assertEquals(Boolean.TRUE, woke.get());
        }
    }

    @Test
    void manyProducersOneConsumerKeepTheAccounts() throws InterruptedException {
        int producers = 4;
        int each = 5000;
        try (Policy policy = retrying(500, 2); Queue queue = Queue.builder(policy).build()) {
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean producing = new AtomicBoolean(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int id = p;
                threads.add(new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < each; i++) {
                            queue.enqueue("p" + id + "-" + i);
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            Thread consumer = new Thread(() -> {
                try {
                    start.await();
                    int round = 0;
                    while (producing.get() || queue.pending() > 0) {
                        try (Batch batch = queue.take(50)) {
                            if (batch == null) {
                                Thread.onSpinWait();
                                continue;
                            }
                            // Every third batch is retried once, the rest delivered.
                            Disposition how = round++ % 3 == 0 && batch.attempts(0) == 1 ? Disposition.RETRY
                                    : Disposition.DELIVERED;
                            batch.settleAll(how);
                            assertTrue(queue.stats().balanced(), "D9 holds at every moment");
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            threads.forEach(Thread::start);
            consumer.start();
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            producing.set(false);
            consumer.join(30_000);
            assertNull(failure.get());
            QueueStats stats = queue.stats();
            assertEquals((long) producers * each, stats.accepted());
            assertEquals(stats.accepted(), stats.delivered() + stats.droppedCapacity() + stats.retriesExhausted());
            assertEquals(0, stats.pending());
            assertEquals(0, stats.inFlight());
            assertTrue(stats.balanced());
            assertTrue(stats.delivered() > 0);
        }
    }
}

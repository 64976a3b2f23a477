package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class DeliveryEngineTest {
    private static Policy retryServerErrors() {
        return Policy.fromJson("""
                {"name": "edgehog", "maximum_capacity": 100, "retry_times": 2,
                 "error_handlers": [{"on": "server_error", "strategy": "retry"},
                                    {"on": "client_error", "strategy": "discard"}]}""");
    }

    @Test
    void sendsRetriesAndDeliversInOrder() {
        try (Policy policy = retryServerErrors();
             Queue queue = Queue.builder(policy).build();
             Gate gate = Gate.builder().failuresToEnterRecovery(5).build();
             DeliveryEngine engine = DeliveryEngine.builder(queue, gate).minEntriesPerMessage(2)
                     .maxEntriesPerMessage(3).build()) {
            assertEquals(2, engine.minEntries());
            assertEquals(3, engine.maxEntries());
            queue.enqueue("e1", 0);
            assertEquals(Action.IDLE, engine.next(0), "below min_entries_per_message (S2)");
            queue.enqueue("e2", 0);
            queue.enqueue("e3", 0);
            queue.enqueue("e4", 0);
            assertEquals(Action.SEND, engine.next(1));
            Batch batch = engine.take(1);
            assertEquals(List.of("e1", "e2", "e3"), batch.texts());
            engine.settle(batch, 503, 0, 1);
            assertTrue(batch.isClosed(), "settle closes the batch");
            assertEquals("batch is closed", assertThrows(ClosedException.class, () -> batch.text(0)).getMessage());

            assertEquals(Action.SEND, engine.next(2));
            Batch again = engine.take(2);
            assertEquals(List.of("e1", "e2", "e3"), again.texts(), "retried to the head (D4)");
            assertEquals(2, again.attempts(0));
            engine.settle(again, 200, 0, 2);
            assertEquals(Action.IDLE, engine.next(3), "one event left, below the minimum");

            engine.shutdown(4);
            assertTrue(engine.isShuttingDown());
            assertEquals(Action.SEND, engine.next(4), "closing drains below the minimum (S5)");
            Batch last = engine.take(4);
            assertEquals(List.of("e4"), last.texts());
            engine.settle(last, 404, 0, 4);
            assertEquals(Action.DONE, engine.next(4));
            assertEquals(0, engine.unsent());

            QueueStats q = queue.stats();
            assertEquals(3, q.delivered());
            assertEquals(1, q.discarded(), "client_error is discarded");
            assertEquals(3, q.retried(), "each event of the failed batch went back once");
            assertTrue(q.balanced());
            EngineStats e = engine.stats();
            assertEquals(3, e.sends());
            assertEquals(2, e.sendsFailed());
            assertEquals(7, e.eventsSent());
            assertTrue(e.closing());
            assertFalse(e.closedWhilePaused());
            assertEquals("queue is closed", assertThrows(ClosedException.class, () -> queue.enqueue("late", 5))
                    .getMessage());
        }
    }

    @Test
    void pausedGateMakesTheSenderWaitAndCloseLeavesEventsUnsent() {
        List<Event> gateEvents = new ArrayList<>();
        List<Event> engineEvents = new ArrayList<>();
        try (Policy policy = retryServerErrors();
             Queue queue = Queue.builder(policy).build();
             Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(10).onEvent(gateEvents::add)
                     .build();
             DeliveryEngine engine = DeliveryEngine.builder(queue, gate).minEntriesPerMessage(1)
                     .onEvent(engineEvents::add).build()) {
            queue.enqueue("e1", 0);
            queue.enqueue("e2", 0);
            Batch batch = engine.take(0);
            engine.settleTransportFailure(batch, 0);
            assertEquals("recovery_started", gateEvents.get(0).type(), "the engine polls the gate's events");

            assertEquals(Action.WAIT, engine.next(4));
            assertEquals(6.0, engine.waitSeconds(), 1e-9);
            TemporarilyUnavailableException refused = assertThrows(TemporarilyUnavailableException.class,
                    () -> engine.take(4));
            assertEquals(6.0, refused.getRetryAfter(), 1e-9);
            assertEquals(Gate.refusalMessage(6.0), refused.getMessage());
            queue.enqueue("e3", 5); // S1: producers are never refused by a pause

            engine.shutdown(5);
            assertEquals(Action.DONE, engine.next(5), "closing while paused sends nothing (S5)");
            assertEquals(3, engine.unsent());
            assertTrue(engine.stats().closedWhilePaused());
            assertEquals(1, engineEvents.size());
            Event unsent = engineEvents.get(0);
            assertEquals("unsent_at_close", unsent.type());
            assertEquals(3, unsent.count());
            assertTrue(unsent.warning());
            assertEquals("engine is closed", assertThrows(ClosedException.class, () -> engine.take(6)).getMessage());
        }
    }

    @Test
    void misuseIsTheCoresError() {
        try (Policy policy = retryServerErrors();
             Queue queue = Queue.builder(policy).build();
             Gate gate = Gate.builder().build();
             DeliveryEngine engine = DeliveryEngine.builder(queue, gate).minEntriesPerMessage(1).build()) {
            queue.enqueue("e1", 0);
            Batch batch = engine.take(0);
            assertEquals("a batch is already in flight: settle it first",
                    assertThrows(InvalidArgumentException.class, () -> engine.take(0)).getMessage());
            assertThrows(InvalidArgumentException.class, () -> engine.next(0));
            assertThrows(InvalidArgumentException.class, () -> engine.settle(batch, 42));
            assertFalse(batch.isClosed(), "a refused settle leaves the batch in flight");
            assertThrows(InvalidTimeException.class, () -> engine.settle(batch, false, 200, 0, -1));
            engine.settle(batch, 200);
            assertEquals("batch must be the one respite_engine_take returned and not yet settled",
                    assertThrows(InvalidArgumentException.class, () -> engine.settle(batch, 200)).getMessage());
            assertEquals(1, queue.stats().delivered());
        }
    }

    @Test
    void buildErrors() {
        try (Policy policy = retryServerErrors();
             Queue queue = Queue.builder(policy).build();
             Gate gate = Gate.builder().build()) {
            assertEquals("min_entries_per_message", assertThrows(InvalidSettingException.class,
                    () -> DeliveryEngine.builder(queue, gate).minEntriesPerMessage(0).build()).getSetting());
            assertEquals("close_timeout_seconds", assertThrows(InvalidSettingException.class,
                    () -> DeliveryEngine.builder(queue, gate).closeTimeoutSeconds(-1).build()).getSetting());
            gate.close();
            assertEquals("gate is closed", assertThrows(ClosedException.class,
                    () -> DeliveryEngine.builder(queue, gate).build()).getMessage());
            queue.close();
            assertEquals("queue is closed", assertThrows(ClosedException.class,
                    () -> DeliveryEngine.builder(queue, Gate.builder().build()).build()).getMessage());
        }
    }

    @Test
    void closingTheEngineReturnsTheBatchInFlightAndThrowsAfter() {
        try (Queue queue = Queue.builder().build(); Gate gate = Gate.builder().build()) {
            DeliveryEngine engine = DeliveryEngine.builder(queue, gate).minEntriesPerMessage(1).build();
            queue.enqueue("e1", 0);
            Batch batch = engine.take(0);
            assertEquals(0, queue.pending());
            engine.close();
            engine.close();
            assertTrue(engine.isClosed());
            assertEquals(1, queue.pending(), "the batch in flight went back to the queue");
            assertEquals("batch is closed", assertThrows(ClosedException.class, () -> batch.text(0)).getMessage());
            for (Runnable use : List.<Runnable>of(() -> engine.next(0), () -> engine.take(0), engine::stats,
                    () -> engine.shutdown(0), engine::unsent, engine::minEntries, () -> engine.settle(batch, 200))) {
                assertEquals("engine is closed", assertThrows(ClosedException.class, use::run).getMessage());
            }
            assertEquals(0.0, engine.waitSeconds());
            try (Batch taken = queue.take(1, 1)) {
                assertEquals(1, taken.attempts(0), "the returned batch's attempt was not counted");
                assertNull(taken.disposition(0));
                taken.settleAll(Disposition.DELIVERED);
            }
            assertTrue(queue.stats().balanced());
        }
    }
}

package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void delaysGrowAndStop() {
        try (Backoff backoff = Backoff.builder().maxAttempts(4).initialDelaySeconds(0.5).multiplier(2)
                .maxDelaySeconds(1.5).build()) {
            long sequence = backoff.start();
            assertEquals(0.5, backoff.delay(sequence, 1, 0), 1e-12);
            assertEquals(1.0, backoff.delay(sequence, 2, 0), 1e-12);
            assertEquals(1.5, backoff.delay(sequence, 3, 0), 1e-12);
            assertEquals(1.5, backoff.next(sequence, 3, Outcome.TRANSPORT, 0, 0), 1e-12);
            assertEquals(Backoff.STOP, backoff.next(sequence, 4, Outcome.TRANSPORT, 0, 0));
            assertEquals(Backoff.STOP, backoff.next(sequence, 1, Outcome.SUCCESS, 0, 0));
            assertEquals(4, backoff.maxAttempts());
        }
    }

    @Test
    void seededJitterRepeats() {
        try (Backoff a = Backoff.builder().jitter(Jitter.FULL).seed(42).build();
                Backoff b = Backoff.builder().jitter(Jitter.FULL).seed(42).build()) {
            assertEquals(a.delay(a.start(), 2, 0), b.delay(b.start(), 2, 0));
        }
    }

    @Test
    void retryOnListsOutcomesAndStatuses() {
        try (Backoff backoff = Backoff.builder().retryOn("transport", 503).build()) {
            assertTrue(backoff.retriesOn(Outcome.TRANSPORT, 0));
            assertTrue(backoff.retriesOn(Outcome.SERVER_ERROR, 503));
            assertFalse(backoff.retriesOn(Outcome.SERVER_ERROR, 500));
        }
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Backoff.builder().retryOn("teapot").build());
        assertEquals("retry_on", e.getSetting());
    }

    @Test
    void callRetriesThroughTheGate() {
        try (Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(0.001).build();
                Gate gate = Gate.builder().failuresToEnterRecovery(2).build()) {
            AtomicInteger attempts = new AtomicInteger();
            String result = backoff.call(gate, () -> {
                if (attempts.incrementAndGet() < 2) {
                    throw new java.io.UncheckedIOException(new java.net.SocketException("reset by peer"));
                }
                return "done";
            });
            assertEquals("done", result);
            assertEquals(2, attempts.get());

            attempts.set(0);
            assertThrows(TemporarilyUnavailableException.class, () -> backoff.call(gate, () -> {
                attempts.incrementAndGet();
                throw OutcomeException.ofStatus(503, "busy");
            }));
            assertEquals(1, attempts.get(), "the second failure opened the gate: no attempt while it refuses");
        }
    }

    @Test
    void givingUpThrowsTheCoresTransportErrorCausedByTheLastFailure() {
        try (Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(0.001).maxDelaySeconds(0.002)
                .build()) {
            AtomicInteger attempts = new AtomicInteger();
            OutcomeException busy = OutcomeException.ofStatus(503, "busy");
            TransportException error = assertThrows(TransportException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                throw busy;
            }));
            assertEquals(3, attempts.get());
            assertEquals("the call failed after 3 attempts: last outcome server_error (status 503)",
                    error.getMessage());
            assertSame(busy, error.getCause());

            attempts.set(0);
            error = assertThrows(TransportException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                throw OutcomeException.ofStatus(404, "no such thing");
            }));
            assertEquals(1, attempts.get(), "retry_on does not list request_error");
            assertEquals("the call failed with request_error (status 404), which retry_on does not retry",
                    error.getMessage());

            assertEquals("the call failed after 4 attempts: last outcome transport",
                    backoff.gaveUpError(4, Outcome.TRANSPORT, 0).getMessage());
            InvalidArgumentException success = assertThrows(InvalidArgumentException.class,
                    () -> backoff.gaveUpError(1, Outcome.SUCCESS, 200));
            assertTrue(success.getMessage().startsWith("outcome must be a failure outcome"));
        }
    }

    @Test
    void closedBackoffThrows() {
        Backoff backoff = Backoff.builder().build();
        backoff.close();
        assertEquals("backoff is closed", assertThrows(ClosedException.class, backoff::start).getMessage());
        assertThrows(ClosedException.class, backoff::maxAttempts);
    }
}

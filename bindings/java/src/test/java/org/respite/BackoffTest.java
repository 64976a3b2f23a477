package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
        assertEquals("backoff is closed", assertThrows(ClosedException.class, backoff::maxAttempts).getMessage());
    }

    @Test
    void maxElapsedSecondsStopsBeforeAWaitPastTheLimit() {
        // B16: waits of 30 ms against 50 ms: the second wait would end past it
        try (Backoff backoff = Backoff.builder().maxAttempts(10).initialDelaySeconds(0.03).multiplier(1)
                .maxElapsedSeconds(0.05).build()) {
            AtomicInteger attempts = new AtomicInteger();
            TransportException error = assertThrows(TransportException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                throw new IOException("reset");
            }));
            assertEquals(2, attempts.get());
            assertEquals("the call failed after 2 attempts: the next would start past max_elapsed_seconds (0.05); "
                    + "last outcome transport", error.getMessage());
        }
        InvalidSettingException bad = assertThrows(InvalidSettingException.class,
                () -> Backoff.builder().maxElapsedSeconds(-1).build());
        assertEquals("max_elapsed_seconds must be a number from 0 to 86400 (got -1)", bad.getMessage());
    }

    @Test
    void immediateRetriesMakeFiveAttemptsWithOneSecondDelaysFast() {
        // B17: the same attempts and delays, no waits
        List<Double> delays = new ArrayList<>();
        try (Backoff backoff = Backoff.builder().maxAttempts(5).initialDelaySeconds(1).multiplier(1)
                .beforeSleep(event -> delays.add(event.delaySeconds())).build()) {
            AtomicInteger attempts = new AtomicInteger();
            boolean before = Testing.setImmediateRetries(true);
            long started = System.nanoTime();
            try {
                TransportException error = assertThrows(TransportException.class, () -> backoff.call(() -> {
                    attempts.incrementAndGet();
                    throw new IOException("reset");
                }));
                assertEquals("the call failed after 5 attempts: last outcome transport", error.getMessage());
            } finally {
                assertTrue(Testing.setImmediateRetries(before));
            }
            assertTrue(System.nanoTime() - started < 100_000_000L, "took " + (System.nanoTime() - started) + " ns");
            assertEquals(5, attempts.get());
            assertEquals(List.of(1.0, 1.0, 1.0, 1.0), delays);
            assertFalse(Testing.immediateRetries());

            // the asynchronous path too
            attempts.set(0);
            Testing.setImmediateRetries(true);
            try {
                CompletionException async = assertThrows(CompletionException.class, () -> backoff.callAsync(null,
                        () -> {
                            attempts.incrementAndGet();
                            return CompletableFuture.<String>failedFuture(new IOException("reset"));
                        }).join());
                assertTrue(async.getCause() instanceof TransportException);
            } finally {
                Testing.setImmediateRetries(false);
            }
            assertEquals(5, attempts.get());
        }
    }

    @Test
    void beforeSleepSeesEachFailureAndItsExceptionEndsTheCall() {
        // B19: attempt, delay, outcome, status, and the exception or the result
        List<RetryEvent> events = new ArrayList<>();
        OutcomeException busy = OutcomeException.ofStatus(503, "busy");
        try (Backoff backoff = Backoff.builder().maxAttempts(4).initialDelaySeconds(0.001).maxDelaySeconds(0.002)
                .classifier(Classifier.DEFAULT.resultStatus(Integer.class, status -> status))
                .beforeSleep(events::add).build()) {
            AtomicInteger attempts = new AtomicInteger();
            int result = backoff.call(() -> {
                if (attempts.incrementAndGet() == 1) {
                    throw busy;
                }
                return attempts.get() == 2 ? 429 : 200;
            });
            assertEquals(200, result);
            assertEquals(2, events.size());
            assertEquals(new RetryEvent(1, 0.001, Outcome.SERVER_ERROR, 503, busy, null), events.get(0));
            assertEquals(new RetryEvent(2, 0.002, Outcome.THROTTLED, 429, null, 429), events.get(1));
            assertEquals(java.time.Duration.ofMillis(1), events.get(0).delay());
        }
        IllegalStateException stop = new IllegalStateException("stop retrying");
        try (Backoff backoff = Backoff.builder().initialDelaySeconds(10).beforeSleep(event -> {
            throw stop;
        }).build()) {
            AtomicInteger attempts = new AtomicInteger();
            assertSame(stop, assertThrows(IllegalStateException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                throw new IOException("reset");
            })));
            assertEquals(1, attempts.get(), "no wait, no further attempt");
        }
    }

    @Test
    void theCallersOwnExceptionIsNotRetriedEvenWhenRetryOnListsRequestError() {
        // B18: reported as request_error (not counted), rethrown unchanged
        try (Backoff backoff = Backoff.builder().retryOn("transport", "request_error").initialDelaySeconds(0.001)
                .build(); Gate gate = Gate.builder().failuresToEnterRecovery(1).build()) {
            AtomicInteger attempts = new AtomicInteger();
            IllegalArgumentException mine = new IllegalArgumentException("my bug");
            assertSame(mine, assertThrows(IllegalArgumentException.class, () -> backoff.call(gate, () -> {
                attempts.incrementAndGet();
                throw mine;
            })));
            assertEquals(1, attempts.get());
            assertEquals(1, gate.stats().reported());
            assertEquals(0, gate.stats().countedFailures());
            assertEquals(GateState.CLOSED, gate.state());
        }
    }
}

package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** Issue 20, item 1: what counts as the service's failure, for the gate and the retry helper alike. */
class ClassifierTest {
    private static Gate gate(Classifier classifier) {
        return Gate.builder().failuresToEnterRecovery(3).recoverySeconds(60).classifier(classifier).build();
    }

    private static Backoff backoff() {
        return Backoff.builder().maxAttempts(3).initialDelaySeconds(0.001).maxDelaySeconds(0.002).build();
    }

    @Test
    void theCallersOwnExceptionDoesNotOpenTheGate() {
        // Before: a lookup failure in the caller's code opened the gate after 3 calls.
        try (Gate gate = gate(Classifier.DEFAULT)) {
            NoSuchElementException mine = new NoSuchElementException("no key 'user'");
            for (int i = 0; i < 4; i++) {
                assertSame(mine, assertThrows(NoSuchElementException.class, () -> gate.call(() -> {
                    throw mine;
                })));
            }
            assertEquals(GateState.CLOSED, gate.state());
            assertEquals(0, gate.stats().countedFailures());
            assertEquals(4, gate.stats().reported(), "reported, as request_error");
        }
    }

    @Test
    void ioAndTimeoutFailuresCount() throws Exception {
        try (Gate gate = gate(Classifier.DEFAULT)) {
            assertThrows(SocketTimeoutException.class, () -> gate.run(() -> {
                throw new SocketTimeoutException("read timed out");
            }));
            assertThrows(UncheckedIOException.class, () -> gate.call(() -> {
                throw new UncheckedIOException(new IOException("reset"));
            }));
            assertThrows(java.util.concurrent.TimeoutException.class, () -> gate.run(() -> {
                throw new java.util.concurrent.TimeoutException();
            }));
            assertEquals(GateState.OPEN, gate.state());
        }
    }

    @Test
    void countAllFailuresCountsTheCallersOwnToo() {
        // The caller's own failure is reported as request_error: count_all_failures counts it (O9).
        try (Gate gate = Gate.builder().failuresToEnterRecovery(2).countAllFailures(true).build()) {
            for (int i = 0; i < 2; i++) {
                assertThrows(IllegalStateException.class, () -> gate.call(() -> {
                    throw new IllegalStateException("bug");
                }));
            }
            assertEquals(GateState.OPEN, gate.state());
        }
    }

    @Test
    void aProbeEndingInTheCallersOwnFailureClosesTheGate() throws InterruptedException {
        // Reported as request_error, a non-counted outcome: the probe did not show the service failing (G8).
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(0.05).build()) {
            gate.report(gate.acquire(), Outcome.TRANSPORT);
            assertEquals(GateState.OPEN, gate.state());
            Thread.sleep(80);
            assertThrows(IllegalStateException.class, () -> gate.call(() -> {
                throw new IllegalStateException("bug");
            }));
            assertEquals(GateState.CLOSED, gate.state());
        }
    }

    @Test
    void theRetryHelperRethrowsTheCallersOwnAtOnce() {
        try (Backoff backoff = backoff(); Gate gate = gate(Classifier.DEFAULT)) {
            AtomicInteger attempts = new AtomicInteger();
            IllegalArgumentException mine = new IllegalArgumentException("bad id");
            assertSame(mine, assertThrows(IllegalArgumentException.class, () -> backoff.call(gate, () -> {
                attempts.incrementAndGet();
                throw mine;
            })));
            assertEquals(1, attempts.get(), "not retried");
            assertEquals(0, gate.stats().countedFailures());
        }
    }

    @Test
    void overridesInOneLine() {
        Classifier classifier = Classifier.DEFAULT.count(IllegalStateException.class).ignore(SocketTimeoutException.class);
        try (Gate gate = gate(classifier)) {
            assertThrows(SocketTimeoutException.class, () -> gate.run(() -> {
                throw new SocketTimeoutException("the caller's deadline");
            }));
            assertEquals(0, gate.stats().countedFailures(), "ignored, although an IOException");
            assertThrows(IllegalStateException.class, () -> gate.call(() -> {
                throw new IllegalStateException("driver: pool exhausted");
            }));
            assertEquals(1, gate.stats().countedFailures(), "counted, although not an IOException");
        }
        try (Gate gate = gate(Classifier.DEFAULT.countEveryException())) {
            assertThrows(NoSuchElementException.class, () -> gate.call(() -> {
                throw new NoSuchElementException();
            }));
            assertEquals(1, gate.stats().countedFailures());
        }
        try (Gate gate = gate(Classifier.DEFAULT.countWhen(e -> e.getMessage().contains("busy")))) {
            assertThrows(IllegalStateException.class, () -> gate.call(() -> {
                throw new IllegalStateException("server busy");
            }));
            assertEquals(1, gate.stats().countedFailures());
        }
    }

    @Test
    void anExceptionTypeMayCarryAnyOutcome() {
        Classifier classifier = Classifier.DEFAULT.outcome(IllegalStateException.class,
                e -> e.getMessage().equals("throttled") ? Outcome.THROTTLED : null);
        try (Backoff backoff = Backoff.builder().maxAttempts(2).initialDelaySeconds(0.001).retryOn("throttled")
                .classifier(classifier).build()) {
            AtomicInteger attempts = new AtomicInteger();
            TransportException gaveUp = assertThrows(TransportException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                throw new IllegalStateException("throttled");
            }));
            assertEquals(2, attempts.get());
            assertEquals("the call failed after 2 attempts: last outcome throttled", gaveUp.getMessage());
            attempts.set(0);
            assertThrows(IllegalStateException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                throw new IllegalStateException("other");
            }));
            assertEquals(1, attempts.get(), "null: the caller's own");
        }
    }

    @Test
    void aReturned503ResponseIsCountedAndRetried() {
        // Before: a returned 503 java.net.http.HttpResponse was a success, never retried.
        try (Backoff backoff = backoff(); Gate gate = gate(Classifier.DEFAULT)) {
            AtomicInteger attempts = new AtomicInteger();
            HttpResponses last = backoff.call(gate, () -> new HttpResponses(
                    attempts.incrementAndGet() < 3 ? 503 : 200, "x"));
            assertEquals(200, last.statusCode());
            assertEquals(3, attempts.get());
            assertEquals(2, gate.stats().countedFailures());

            attempts.set(0);
            TransportException gaveUp = assertThrows(TransportException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                return new HttpResponses(503, "busy");
            }));
            assertEquals("the call failed after 3 attempts: last outcome server_error (status 503)", gaveUp.getMessage());
            assertEquals(503, ((HttpResponses) gaveUp.getResult()).statusCode(), "B20: the give-up carries the last response");
            assertNull(gaveUp.getCause());
            assertEquals(3, attempts.get());

            attempts.set(0);
            TransportException notRetried = assertThrows(TransportException.class, () -> backoff.call(() -> {
                attempts.incrementAndGet();
                return new HttpResponses(404, "no");
            }));
            assertEquals(404, ((HttpResponses) notRetried.getResult()).statusCode());
            assertEquals(1, attempts.get(), "retry_on does not list 404");

            CompletionException failed = assertThrows(CompletionException.class, () -> backoff.callAsync(null,
                    () -> CompletableFuture.completedFuture(new HttpResponses(503, "busy"))).join());
            TransportException async = assertInstanceOf(TransportException.class, failed.getCause(),
                    "callAsync gives up the same way");
            assertEquals(503, ((HttpResponses) async.getResult()).statusCode());
        }
        try (Gate gate = gate(Classifier.DEFAULT)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(503, gate.call(() -> new HttpResponses(503, "busy")).statusCode());
            }
            assertEquals(GateState.OPEN, gate.state());
        }
    }

    @Test
    void plainResultsBetweenResponsesAreSuccessesAndResponsesStillCount() {
        // The default rules remember the last plain result type: a response after it is still classified.
        try (Gate gate = gate(Classifier.DEFAULT)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(7, gate.call(() -> 7));
                assertNull(gate.call(() -> null));
                assertEquals("x", gate.call(() -> "x"));
                assertEquals(503, gate.call(() -> new HttpResponses(503, "busy")).statusCode());
            }
            assertEquals(GateState.OPEN, gate.state());
            assertEquals(3, gate.stats().countedFailures());
        }
    }

    record Reply(int code) {}

    @Test
    void resultsOfYourOwnTypes() {
        Classifier classifier = Classifier.DEFAULT.resultStatus(Reply.class, Reply::code)
                .resultOutcome(String.class, s -> s.isEmpty() ? Outcome.UNUSABLE : null);
        try (Gate gate = gate(classifier)) {
            gate.call(() -> new Reply(502));
            gate.call(() -> new Reply(200));
            gate.call(() -> "");
            gate.call(() -> "fine");
            assertEquals(2, gate.stats().countedFailures());
        }
    }

    @Test
    void theBackoffsClassifierElseTheGates() {
        Classifier counting = Classifier.DEFAULT.count(IllegalStateException.class);
        try (Backoff backoff = backoff(); Gate gate = gate(counting)) {
            AtomicInteger attempts = new AtomicInteger();
            assertThrows(TransportException.class, () -> backoff.call(gate, () -> {
                attempts.incrementAndGet();
                throw new IllegalStateException("pool exhausted");
            }));
            assertEquals(3, attempts.get(), "the gate's classifier: counted and retried");
        }
        try (Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(0.001)
                .classifier(Classifier.DEFAULT).build(); Gate gate = gate(counting)) {
            AtomicInteger attempts = new AtomicInteger();
            assertThrows(IllegalStateException.class, () -> backoff.call(gate, () -> {
                attempts.incrementAndGet();
                throw new IllegalStateException("pool exhausted");
            }));
            assertEquals(1, attempts.get(), "the back-off's own classifier wins");
        }
    }
}

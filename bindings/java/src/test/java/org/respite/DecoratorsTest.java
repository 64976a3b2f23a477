package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

/** Issue 20, items 2 and 3 for Java: decorators, composition, CompletionStage, Duration. */
class DecoratorsTest {
    private static Gate gate(int failures) {
        return Gate.builder().failuresToEnterRecovery(failures).recoverySeconds(60).build();
    }

    private static Backoff backoff(int attempts) {
        return Backoff.builder().maxAttempts(attempts).initialDelaySeconds(0.001).maxDelaySeconds(0.002).build();
    }

    @Test
    void gateDecoratesEveryShape() throws Exception {
        try (Gate gate = gate(4)) {
            AtomicInteger runs = new AtomicInteger();
            Supplier<Integer> supplier = gate.decorateSupplier(runs::incrementAndGet);
            Callable<Integer> callable = gate.decorateCallable(runs::incrementAndGet);
            Runnable runnable = gate.decorateRunnable(runs::incrementAndGet);
            CheckedSupplier<String, IOException> checked = gate.decorateCheckedSupplier(() -> {
                throw new IOException("refused");
            });
            CheckedRunnable<IOException> checkedRunnable = gate.decorateCheckedRunnable(() -> {
                throw new IOException("reset");
            });
            assertEquals(1, supplier.get());
            assertEquals(2, callable.call());
            runnable.run();
            assertEquals(3, runs.get());
            assertThrows(IOException.class, checked::get);
            assertThrows(IOException.class, checkedRunnable::run);
            assertEquals(2, gate.stats().countedFailures());
            assertEquals(5, gate.stats().reported());
        }
    }

    @Test
    void composesRetryGateAndFallback() throws Exception {
        try (Gate gate = gate(2); Backoff backoff = backoff(5)) {
            AtomicInteger attempts = new AtomicInteger();
            CheckedSupplier<String, IOException> decorated = Decorators.ofCheckedSupplier(() -> {
                attempts.incrementAndGet();
                if (attempts.get() > 0) {
                    throw new IOException("down");
                }
                return "never";
            }).withGate(gate).withRetry(backoff)
                    .withFallback(TemporarilyUnavailableException.class, refused -> "cached").decorate();
            assertEquals("cached", decorated.get(), "two failures opened the gate; the next attempt was refused");
            assertEquals(2, attempts.get());
            assertEquals("cached", decorated.get(), "refused at once");
            assertEquals(2, attempts.get());
        }
        try (Backoff backoff = backoff(2)) {
            IllegalStateException mine = new IllegalStateException("bug");
            Supplier<String> decorated = Decorators.ofSupplier((Supplier<String>) () -> {
                throw mine;
            }).withRetry(backoff).withFallback(TransportException.class, gaveUp -> "gave up").decorateUnchecked();
            assertSame(mine, assertThrows(IllegalStateException.class, decorated::get),
                    "a fallback for one type lets the others through");
            AtomicInteger fellBack = new AtomicInteger();
            Decorators.ofRunnable(() -> {
                throw new UncheckedIOException(new IOException("x"));
            }).withRetry(backoff).withFallback(e -> {
                fellBack.incrementAndGet();
                return null;
            }).get();
            assertEquals(1, fellBack.get(), "a fallback may return null (a Runnable's)");
        }
    }

    @Test
    void checkedExceptionsThroughDecorateUnchecked() {
        Supplier<String> decorated = Decorators.<String>ofCallable(() -> {
            throw new IOException("disk");
        }).decorateUnchecked();
        CompletionException wrapped = assertThrows(CompletionException.class, decorated::get);
        assertInstanceOf(IOException.class, wrapped.getCause());
    }

    @Test
    void completionStagesAreReportedWhenTheyComplete() {
        try (Gate gate = gate(2)) {
            CompletableFuture<String> pending = new CompletableFuture<>();
            CompletableFuture<String> result = gate.callAsync(() -> pending);
            assertEquals(0, gate.stats().reported(), "nothing reported before the stage completes");
            pending.completeExceptionally(new IOException("reset"));
            assertInstanceOf(IOException.class, assertThrows(CompletionException.class, result::join).getCause());
            assertEquals(1, gate.stats().countedFailures());

            Supplier<CompletionStage<String>> decorated = gate.decorateCompletionStage(
                    () -> CompletableFuture.failedFuture(new CompletionException(new IOException("refused"))));
            assertThrows(CompletionException.class, () -> decorated.get().toCompletableFuture().join());
            assertEquals(GateState.OPEN, gate.state(), "a CompletionException is classified by its cause");

            AtomicInteger runs = new AtomicInteger();
            CompletableFuture<Integer> refused = gate.callAsync(() -> CompletableFuture.completedFuture(
                    runs.incrementAndGet()));
            assertInstanceOf(TemporarilyUnavailableException.class,
                    assertThrows(CompletionException.class, refused::join).getCause());
            assertEquals(0, runs.get());
        }
    }

    @Test
    void asyncRetriesWithoutBlockingAndWithFallback() {
        try (Gate gate = gate(10); Backoff backoff = backoff(4)) {
            AtomicInteger attempts = new AtomicInteger();
            String value = backoff.callAsync(gate, () -> attempts.incrementAndGet() < 3
                    ? CompletableFuture.<String>failedFuture(new IOException("reset"))
                    : CompletableFuture.completedFuture("done")).join();
            assertEquals("done", value);
            assertEquals(3, attempts.get());

            attempts.set(0);
            CompletionException gaveUp = assertThrows(CompletionException.class,
                    () -> backoff.callAsync(gate, () -> {
                        attempts.incrementAndGet();
                        return CompletableFuture.<String>failedFuture(new IOException("reset"));
                    }).join());
            assertInstanceOf(TransportException.class, gaveUp.getCause());
            assertEquals("the call failed after 4 attempts: last outcome transport", gaveUp.getCause().getMessage());
            assertEquals(4, attempts.get());

            attempts.set(0);
            IllegalStateException mine = new IllegalStateException("bug");
            CompletionException own = assertThrows(CompletionException.class, () -> backoff.callAsync(gate, () -> {
                attempts.incrementAndGet();
                return CompletableFuture.<String>failedFuture(mine);
            }).join());
            assertSame(mine, own.getCause());
            assertEquals(1, attempts.get(), "the caller's own failure is not retried");

            String fallback = Decorators.ofCompletionStage(() -> CompletableFuture.<String>failedFuture(
                    new IOException("down"))).withGate(gate).withRetry(backoff)
                    .withFallback(TransportException.class, e -> "fallback").get().toCompletableFuture().join();
            assertEquals("fallback", fallback);
        }
    }

    @Test
    void durations() {
        assertEquals(1.5, Respite.seconds(Duration.ofMillis(1500)));
        assertEquals(Duration.ofMillis(250), Respite.duration(0.25));
        assertEquals(ChronoUnit.FOREVER.getDuration(), Respite.duration(Double.POSITIVE_INFINITY));
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).set("recovery_seconds", Duration.ofSeconds(30))
                .build()) {
            gate.report(gate.admit(100.0), Outcome.TRANSPORT, 0, 100.0);
            assertEquals(Duration.ofSeconds(20), gate.check(110.0).retryAfterDuration());
            assertTrue(gate.retryAfterDuration().compareTo(Duration.ofSeconds(30)) <= 0);
        }
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverNever(true).build()) {
            gate.report(gate.admit(1.0), Outcome.TRANSPORT, 0, 1.0);
            assertEquals(ChronoUnit.FOREVER.getDuration(), gate.check(2.0).retryAfterDuration());
        }
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Gate.builder().set("failures_window_seconds", Duration.ofSeconds(-1)).build());
        assertEquals("failures_window_seconds", e.getSetting());
    }
}

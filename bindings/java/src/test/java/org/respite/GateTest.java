package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class GateTest {
    private static Gate small(List<Event> events) {
        return Gate.builder().failuresToEnterRecovery(3).failuresWindowSeconds(10).recoverySeconds(60)
                .onEvent(events::add).build();
    }

    @Test
    void tripsAtThresholdAndRefusesWithRetryAfter() {
        List<Event> events = new ArrayList<>();
        try (Gate gate = small(events)) {
            assertTrue(gate.admit(0.0) > 0);
            gate.report(0, Outcome.TRANSPORT, 0, 0.0);
            gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
            assertEquals(GateState.CLOSED, gate.state(1.5));
            long permit = gate.admit(2.0);
            gate.report(permit, Outcome.SERVER_ERROR, 0, 2.0);
            assertEquals(GateState.OPEN, gate.state(3.0));
            Decision refused = gate.check(3.0);
            assertFalse(refused.allowed());
            assertEquals(59.0, refused.retryAfter(), 1e-9);
            assertEquals(0, gate.admit(3.0));
            TemporarilyUnavailableException e = assertThrows(TemporarilyUnavailableException.class,
                    () -> gate.acquire(3.0));
            assertEquals(59.0, e.getRetryAfter(), 1e-9);
            assertEquals("temporarily_unavailable", e.getStatus());
            assertEquals("sending requests to the service is temporarily restricted due to recent failures; "
                    + "recovery resumes in 59.0s", e.getMessage());
            assertEquals(1, events.size());
            Event started = events.get(0);
            assertEquals("recovery_started", started.type());
            assertEquals(2.0, started.at());
            assertEquals(3, started.failures());
            assertEquals(60.0, started.pause());
            assertTrue(started.warning());
        }
    }

    @Test
    void probeSuccessRecoversAndLogsInfo() {
        List<Event> events = new ArrayList<>();
        try (Gate gate = small(events)) {
            for (int i = 0; i < 3; i++) {
                gate.report(0, Outcome.TRANSPORT, 0, 1.0);
            }
            Decision probe = gate.check(61.0);
            assertTrue(probe.allowed());
            assertTrue(probe.probe());
            assertFalse(gate.check(61.5).allowed(), "one probe at a time");
            gate.report(probe.permit(), Outcome.SUCCESS, 0, 62.0);
            assertEquals(GateState.CLOSED, gate.state(62.0));
            List<String> types = events.stream().map(Event::type).toList();
            assertEquals(List.of("recovery_started", "probing", "recovered"), types);
            assertFalse(events.get(2).warning());
        }
    }

    @Test
    void requestErrorsDoNotCountUnlessAsked() {
        try (Gate gate = small(new ArrayList<>())) {
            for (int i = 0; i < 10; i++) {
                gate.report(gate.admit(1.0), Outcome.REQUEST_ERROR, 0, 1.0);
            }
            assertEquals(GateState.CLOSED, gate.state(1.0));
        }
        try (Gate gate = Gate.builder().failuresToEnterRecovery(2).countAllFailures(true).build()) {
            gate.report(0, Outcome.REQUEST_ERROR, 0, 1.0);
            gate.report(0, Outcome.REQUEST_ERROR, 0, 1.0);
            assertEquals(GateState.OPEN, gate.state(1.0));
        }
    }

    @Test
    void resetClosesAndRecoverNeverRefusesForever() {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverNever(true).build()) {
            gate.report(0, Outcome.TRANSPORT, 0, 1.0);
            assertEquals(Double.POSITIVE_INFINITY, gate.retryAfter(1e6));
            TemporarilyUnavailableException e = assertThrows(TemporarilyUnavailableException.class,
                    () -> gate.acquire(1e6));
            assertEquals(Double.POSITIVE_INFINITY, e.getRetryAfter());
            assertTrue(e.getMessage().endsWith("recovery resumes only after a reset"), e.getMessage());
            gate.reset(2e6);
            assertTrue(gate.admit(2e6) > 0);
        }
    }

    @Test
    void profilesSetTheirDefaults() {
        List<Event> events = new ArrayList<>();
        try (Gate gate = Gate.builder(Profile.USAGE_SHARING).onEvent(events::add).build()) {
            for (int i = 0; i < 10; i++) {
                gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
            }
            assertEquals(2.0, gate.retryAfter(1.0), 1e-9);
            assertEquals(2.0, events.get(0).pause(), 1e-9);
            Decision probe = gate.check(3.0);
            gate.report(probe.permit(), Outcome.SERVER_ERROR, 0, 3.0);
            assertEquals(4.0, gate.retryAfter(3.0), 1e-9, "usage_sharing doubles the pause");
        }
    }

    @Test
    void callReportsOutcomesAndDoesNotRunWhenRefused() {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(2).recoverySeconds(30).build()) {
            assertEquals("ok", gate.call(() -> "ok"));
            assertThrows(java.io.UncheckedIOException.class, () -> gate.call(() -> {
                throw new java.io.UncheckedIOException(new java.net.SocketException("connection reset"));
            }));
            assertThrows(OutcomeException.class, () -> gate.call(() -> {
                throw OutcomeException.ofStatus(503, "busy");
            }));
            AtomicInteger runs = new AtomicInteger();
            TemporarilyUnavailableException refused = assertThrows(TemporarilyUnavailableException.class,
                    () -> gate.call(runs::incrementAndGet));
            assertEquals(0, runs.get(), "refused work is never run");
            assertTrue(refused.getRetryAfter() > 29 && refused.getRetryAfter() <= 30);
            GateStats stats = gate.stats();
            assertEquals(2, stats.countedFailures());
            assertEquals(1, stats.trips());
            assertEquals(3, stats.reported());
        }
    }

    @Test
    void classifierAndRunWithCheckedExceptions() throws Exception {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).build()) {
            assertEquals(404, gate.call(() -> 404, status -> Outcome.classify(status, true)));
            assertEquals(GateState.CLOSED, gate.state(), "404 does not count");
            assertThrows(java.io.IOException.class, () -> gate.run(() -> {
                throw new java.io.IOException("timeout");
            }));
            assertEquals(GateState.OPEN, gate.state());
        }
    }

    @Test
    void closedGateThrowsNeverCrashes() {
        Gate gate = Gate.builder().build();
        gate.close();
        gate.close();
        assertTrue(gate.isClosed());
        ClosedException e = assertThrows(ClosedException.class, () -> gate.admit(1.0));
        assertEquals("gate is closed", e.getMessage());
        assertEquals("closed", e.getStatus());
        assertThrows(ClosedException.class, () -> gate.report(1, Outcome.SUCCESS, 0, 1.0));
        assertThrows(ClosedException.class, () -> gate.check(1.0));
        assertThrows(ClosedException.class, gate::stats);
        assertThrows(ClosedException.class, gate::state);
        assertThrows(ClosedException.class, gate::reset);
        assertThrows(ClosedException.class, gate::retryAfter);
        assertThrows(ClosedException.class, gate::pollEvents);
        assertThrows(ClosedException.class, () -> gate.call(() -> "never"));
        // The one-crossing forms (clock read in C) answer the same.
        assertEquals("gate is closed", assertThrows(ClosedException.class, gate::admit).getMessage());
        assertEquals("gate is closed", assertThrows(ClosedException.class,
                () -> gate.report(1, Outcome.SUCCESS)).getMessage());
    }

    @Test
    void clockReadInCAdmitsReportsAndRefuses() {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(2).recoverySeconds(30).build()) {
            long permit = gate.admit();
            assertTrue(permit > 0);
            gate.report(permit, Outcome.SUCCESS);
            gate.report(gate.admit(), Outcome.SERVER_ERROR);
            gate.report(gate.admit(), Outcome.TRANSPORT);
            assertEquals(0, gate.admit(), "two counted failures opened the gate");
            assertEquals(GateState.OPEN, gate.state());
            double retryAfter = gate.retryAfter();
            assertTrue(retryAfter > 29 && retryAfter <= 30, "the core's clock, in C and in Java, is one clock");
            GateStats stats = gate.stats();
            assertEquals(3, stats.admitted());
            assertEquals(1, stats.refused());
            assertEquals(3, stats.reported());
            assertThrows(InvalidArgumentException.class, () -> gate.report(12345, Outcome.SUCCESS),
                    "a permit this gate did not hand out");
        }
    }

    @Test
    void aRefusalComesWithItsRetryAfterInOneCall() {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(20).build()) {
            gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
            assertEquals(0, gate.admit(6.0));
            TemporarilyUnavailableException refused = assertThrows(TemporarilyUnavailableException.class,
                    () -> gate.acquire(6.0));
            assertEquals(15.0, refused.getRetryAfter(), 1e-9);
            assertEquals(Gate.refusalMessage(15.0), refused.getMessage());
            assertEquals("temporarily_unavailable", refused.getStatus());
        }
        try (Gate never = Gate.builder().failuresToEnterRecovery(1).recoverNever(true).build()) {
            never.report(0, Outcome.SERVER_ERROR, 0, 1.0);
            assertEquals(Double.POSITIVE_INFINITY,
                    assertThrows(TemporarilyUnavailableException.class, never::acquire).getRetryAfter());
        }
    }

    @Test
    void badTimesAndArgumentsAreTheCoresErrors() {
        try (Gate gate = Gate.builder().build()) {
            InvalidTimeException time = assertThrows(InvalidTimeException.class, () -> gate.admit(-1.0));
            assertEquals("invalid_time", time.getStatus());
            assertThrows(InvalidTimeException.class, () -> gate.admit(Double.NaN));
            assertThrows(InvalidArgumentException.class, () -> gate.report(0, Outcome.SERVER_ERROR, -1, 1.0));
        }
    }

    @Test
    void manyThreadsShareOneGate() throws InterruptedException {
        int threads = 8;
        int callsEach = 20_000;
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1000).failuresWindowSeconds(1).build()) {
            List<Thread> workers = new ArrayList<>();
            AtomicInteger errors = new AtomicInteger();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread worker = new Thread(() -> {
                    try {
                        for (int i = 0; i < callsEach; i++) {
                            long permit = gate.admit();
                            if (permit > 0) {
                                gate.report(permit, (i + id) % 50 == 0 ? Outcome.SERVER_ERROR : Outcome.SUCCESS,
                                        0, Respite.now());
                            }
                        }
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                    }
                });
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            assertEquals(0, errors.get());
            GateStats stats = gate.stats();
            assertEquals((long) threads * callsEach, stats.admitted() + stats.refused());
            assertEquals(stats.admitted(), stats.reported());
        }
    }

    @Test
    void closingWhileOtherThreadsCallNeverCrashes() throws InterruptedException {
        for (int round = 0; round < 20; round++) {
            Gate gate = Gate.builder().build();
            AtomicInteger closedSeen = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread worker = new Thread(() -> {
                    for (int i = 0; i < 5_000; i++) {
                        try {
                            gate.report(gate.admit(), Outcome.SUCCESS);
                        } catch (ClosedException e) {
                            closedSeen.incrementAndGet();
                            return;
                        }
                    }
                });
                workers.add(worker);
                worker.start();
            }
            gate.close();
            for (Thread worker : workers) {
                worker.join();
            }
            assertThrows(ClosedException.class, gate::admit);
        }
    }
}

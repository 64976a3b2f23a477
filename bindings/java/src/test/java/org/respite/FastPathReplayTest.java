package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_decision;
import org.respite.swig.respite_event;

/**
 * Spec K6: the gate's closed path decided in Java (FastPath) gives, step by step,
 * the same permits, statistics and events as the same gate driven through the
 * core alone - with an "engine" on another thread failing calls and resetting the
 * gate between an admit and its report.
 */
class FastPathReplayTest {
    private static final Outcome[] OUTCOMES = {Outcome.SUCCESS, Outcome.SUCCESS, Outcome.SUCCESS,
        Outcome.SERVER_ERROR, Outcome.REQUEST_ERROR};

    private static Gate gate(int probes, List<String> log, int[] step) {
        return Gate.builder().failuresToEnterRecovery(3).failuresWindowSeconds(10).recoverySeconds(1)
                .recoveryMultiplier(2).maxRecoverySeconds(8).probes(probes).probeTimeoutSeconds(2).jitter(0.5)
                .seed(7).onEvent(e -> log.add(step[0] + ":" + e.type() + "@" + e.at())).build();
    }

    /** The core-only binding's events rule: after its call, every waiting event. */
    private static void drain(long p, List<String> log, int step) {
        respite_event e = new respite_event();
        try {
            while (RespiteNative.respite_gate_next_event(p, e) == 1) {
                log.add(step + ":" + EventType.ofCode(e.getType()).wireName() + "@" + e.getAt());
            }
        } finally {
            e.delete();
        }
    }

    private static void replay(int probes, long seed) throws Exception {
        List<String> fastLog = new ArrayList<>();
        List<String> coreLog = new ArrayList<>();
        int[] step = {0};
        ExecutorService engine = Executors.newSingleThreadExecutor();
        respite_decision decision = new respite_decision();
        try (Gate fast = gate(probes, fastLog, step); Gate core = gate(probes, new ArrayList<>(), step)) {
            long pf = fast.handle.enter(); // the "engine" calls the core on these pointers
            long pc = core.handle.enter();
            try {
                Random random = new Random(seed);
                long[] heldFast = new long[8];
                long[] heldCore = new long[8];
                double now = 0;
                long before = fast.fastAdmits();
                for (step[0] = 0; step[0] < 20000; step[0]++) {
                    int slot = random.nextInt(8);
                    int what = random.nextInt(10);
                    if (what < 3) {
                        long a = fast.admit(now);
                        RespiteNative.respite_gate_check(pc, now, decision);
                        long b = decision.getAllowed() != 0 ? decision.getPermit() : 0;
                        drain(pc, coreLog, step[0]);
                        assertEquals(b, a, "permit at step " + step[0]);
                        heldFast[slot] = a;
                        heldCore[slot] = b;
                    } else if (what < 6) {
                        Outcome outcome = OUTCOMES[random.nextInt(OUTCOMES.length)];
                        fast.report(heldFast[slot], outcome, 0, now);
                        RespiteNative.respite_gate_report(pc, heldCore[slot], outcome.code(), 0, now);
                        drain(pc, coreLog, step[0]);
                        heldFast[slot] = heldCore[slot] = 0;
                    } else if (what < 8) {
                        now += random.nextInt(1000) / 400.0;
                    } else if (what == 8) {
                        double t = now;
                        engine.submit(() -> {
                            RespiteNative.respite_gate_report(pf, 0, Outcome.TRANSPORT.code(), 0, t);
                            RespiteNative.respite_gate_report(pc, 0, Outcome.TRANSPORT.code(), 0, t);
                        }).get();
                    } else if (random.nextInt(20) == 0) {
                        double t = now;
                        engine.submit(() -> {
                            RespiteNative.respite_gate_reset(pf, t);
                            RespiteNative.respite_gate_reset(pc, t);
                        }).get();
                    } else {
                        assertThrows(InvalidTimeException.class, () -> fast.admit(-1)); // to the core
                        assertThrows(InvalidTimeException.class,
                                () -> RespiteNative.respite_gate_check(pc, -1, decision));
                        drain(pc, coreLog, step[0]);
                    }
                    if (step[0] % 997 == 0) {
                        assertEquals(core.stats(), fast.stats(), "stats at step " + step[0]);
                    }
                }
                assertEquals(core.stats(), fast.stats());
                assertEquals(coreLog, fastLog);
                assertTrue(fast.fastAdmits() - before > 1000, "the fast path decided the closed admits");
                assertTrue(fastLog.size() > 20, "the replay went through transitions");
            } finally {
                fast.handle.exit();
                core.handle.exit();
            }
        } finally {
            decision.delete();
            engine.shutdownNow();
        }
    }

    @Test
    void replayWithProbes() throws Exception {
        replay(1, 1);
        replay(2, 99);
    }

    @Test
    void replayWithoutProbesG11() throws Exception {
        replay(0, 5);
    }

    @Test
    void threadsCountExactly() throws Exception {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1000).build()) {
            int threads = 4;
            int calls = 50_000;
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    for (int c = 0; c < calls; c++) {
                        gate.call(() -> 1);
                    }
                });
                workers.add(t);
                t.start();
            }
            for (Thread t : workers) {
                t.join();
            }
            GateStats stats = gate.stats();
            assertEquals((long) threads * calls, stats.admitted());
            assertEquals((long) threads * calls, stats.reported());
        }
    }

    @Test
    void theMakingThreadAndOthersCountExactlyAndCloseIsRefusedForAll() throws Exception {
        // The making thread's block is a field, the others' are in a ThreadLocal: both counted, both closed.
        Gate gate = Gate.builder().failuresToEnterRecovery(1000).build();
        long before = gate.fastAdmits();
        Thread other = new Thread(() -> {
            for (int c = 0; c < 1000; c++) {
                gate.call(() -> 1);
            }
        });
        other.start();
        for (int c = 0; c < 1000; c++) {
            gate.call(() -> 1);
        }
        other.join();
        assertEquals(before + 1000, gate.fastAdmits(), "this thread's own block");
        assertEquals(2000, gate.stats().admitted());
        assertEquals(2000, gate.stats().reported());
        gate.close();
        assertThrows(ClosedException.class, () -> gate.call(() -> 1));
        Throwable[] seen = new Throwable[1];
        Thread late = new Thread(() -> seen[0] = assertThrows(ClosedException.class, gate::admit));
        late.start();
        late.join();
        assertTrue(seen[0] instanceof ClosedException);
    }

    @Test
    void closedGateIsRefusedNotFastPathed() {
        Gate gate = Gate.builder().build();
        assertTrue(gate.admit() > 0);
        gate.close();
        assertThrows(ClosedException.class, gate::admit);
        assertThrows(ClosedException.class, () -> gate.success(0));
    }
}

package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fleet gate (spec section 11) against a real redis-server: hosts are
 * separate JVMs (FleetHost) with distinct host ids; this JVM is a third host
 * that never fails.
 */
class FleetGateTest {
    private static final double REFRESH = 0.1;
    private RedisServer redis;

    @BeforeEach
    void startRedis() throws Exception {
        redis = new RedisServer();
    }

    @AfterEach
    void stopRedis() throws Exception {
        redis.close();
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < until, "timed out");
            Thread.sleep(10);
        }
    }

    /** A host JVM whose gate has opened: {@code opened} is when (epoch milliseconds). */
    private final class Host implements AutoCloseable {
        final Process process;
        final long opened;

        Host(String hostId) throws IOException {
            String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), FleetHost.class.getName(),
                    redis.url, "billing", hostId).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertNotNull(line, "host " + hostId + " exited before its gate opened");
            opened = Long.parseLong(line.trim());
        }

        @Override
        public void close() throws Exception {
            process.getOutputStream().close(); // end of input: it closes its gate and exits
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            assertEquals(0, process.exitValue());
        }
    }

    /** The gate's log lines (java.util.logging, logger org.respite.Gate) while it runs. */
    private static final class Lines extends Handler implements AutoCloseable {
        final List<String> lines = new CopyOnWriteArrayList<>();
        // Held: LogManager keeps loggers weakly, and a collected one would come back without this handler.
        private final Logger logger = Logger.getLogger("org.respite.Gate");

        Lines() {
            logger.addHandler(this);
        }

        @Override
        public void publish(LogRecord record) {
            lines.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }

    @Test
    @Timeout(60)
    void aQuorumOfTwoPausesAHostThatNeverFailed() throws Exception {
        List<Event> paused = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        try (Lines log = new Lines();
             Gate gate = FleetHost.fleetGate(redis.url, "billing", "host-c")
                     .onEvent(e -> { if (e.type().equals("fleet_paused")) paused.add(e); }).build();
             Host one = new Host("host-a")) {
            waitFor(() -> gate.fleetView().connected());
            Thread.sleep((long) (5 * REFRESH * 1000)); // one host's opening alone pauses no other host
            for (int i = 0; i < 5; i++) {
                gate.call(calls::incrementAndGet);
            }
            assertEquals(5, calls.get());
            assertEquals(GateState.CLOSED, gate.state());
            gate.pollEvents();
            assertEquals(List.of(), paused);
            FleetView view = gate.fleetView();
            assertEquals(List.of(false, 1, "host-c"), List.of(view.paused(), view.hostsOpened(), view.hostId()));

            try (Host two = new Host("host-b")) {
                TemporarilyUnavailableException refusal = null;
                while (System.currentTimeMillis() < two.opened + 2000) {
                    try {
                        gate.call(calls::incrementAndGet);
                    } catch (TemporarilyUnavailableException e) {
                        refusal = e;
                        break;
                    }
                    Thread.sleep(2);
                }
                long refused = System.currentTimeMillis();
                assertNotNull(refusal, "the fleet's pause never reached this host");
                System.out.printf("refused %d ms after the second host's gate opened%n", refused - two.opened);
                assertTrue(refused - two.opened <= (REFRESH + 0.1) * 1000, (refused - two.opened) + " ms");
                double retryAfter = refusal.getRetryAfter();
                assertTrue(retryAfter > 4 && retryAfter <= 5 + 4 * REFRESH + 0.1, String.valueOf(retryAfter));
                assertEquals(1, paused.size());
                assertEquals(2, paused.get(0).count());
                assertTrue(log.lines.stream().anyMatch(l -> l.contains("fleet paused: 2 hosts' gates opened within 10s")),
                        log.lines.toString());
                view = gate.fleetView();
                assertEquals(List.of(true, 2, 1L), List.of(view.paused(), view.hostsOpened(), view.epoch()));
                assertTrue(view.pauseLeft() > 4 && view.pauseLeft() <= 5, String.valueOf(view.pauseLeft()));
                int count = calls.get(); // a refused call never runs: no network call
                assertThrows(TemporarilyUnavailableException.class, () -> gate.call(calls::incrementAndGet));
                assertEquals(count, calls.get());
            }
        }
    }

    @Test
    @Timeout(60)
    void redisKilledCallsGoOnLocallyThenTheHostRejoins() throws Exception {
        List<Event> lost = new CopyOnWriteArrayList<>();
        List<Event> rejoined = new CopyOnWriteArrayList<>();
        try (Lines log = new Lines();
             Gate gate = FleetHost.fleetGate(redis.url, "billing", "host-c").onEvent(e -> {
                 if (e.type().equals("fleet_store_lost")) {
                     lost.add(e);
                 } else if (e.type().equals("fleet_rejoined")) {
                     rejoined.add(e);
                 }
             }).build()) {
            waitFor(() -> gate.fleetView().connected());
            redis.kill();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            long slowest = 0;
            while (lost.isEmpty()) {
                assertTrue(System.nanoTime() < until, "no fleet_store_lost event");
                long started = System.nanoTime();
                gate.success(gate.acquire()); // admitted by the local gate
                slowest = Math.max(slowest, System.nanoTime() - started);
                Thread.sleep(10);
            }
            assertTrue(slowest < REFRESH * 1e9, "a call waited " + slowest + " ns"); // a wait on Redis lasts the refresh
            FleetView view = gate.fleetView();
            assertTrue(!view.connected() && view.failedExchanges() >= 1, view.toString());
            assertTrue(log.lines.stream().anyMatch(l -> l.contains("fleet store unreachable or slow: this host decides on its own gate")),
                    log.lines.toString());
            // Alone, the local gate keeps its own rules: three failures open it.
            for (int i = 0; i < 3; i++) {
                gate.report(gate.acquire(), Outcome.SERVER_ERROR);
            }
            assertThrows(TemporarilyUnavailableException.class, gate::acquire);

            try (RedisServer again = new RedisServer(redis.port)) { // Redis answers again (empty): the host rejoins
                waitFor(() -> {
                    gate.pollEvents();
                    return !rejoined.isEmpty();
                });
                assertTrue(log.lines.stream().anyMatch(l -> l.contains("fleet store answers again: this host rejoined the fleet")),
                        log.lines.toString());
                assertTrue(gate.fleetView().connected());
            }
        }
    }

    @Test
    void aClosedFleetGateIsTheCoresClosedErrorAndBadSettingsTheCoresErrors() {
        Gate gate = FleetHost.fleetGate(redis.url, "billing", "host-c").build();
        gate.success(gate.acquire());
        gate.close();
        assertTrue(gate.isClosed());
        ClosedException closed = assertThrows(ClosedException.class, gate::acquire);
        assertEquals("gate is closed", closed.getMessage());
        assertThrows(ClosedException.class, gate::fleetView);
        gate.close(); // twice is no error
        try (Gate local = Gate.builder().build()) {
            assertNull(local.fleetView(), "not a fleet gate");
        }

        InvalidSettingException badUrl = assertThrows(InvalidSettingException.class,
                () -> Gate.builder().name("billing").fleetUrl("http://127.0.0.1:6379").build());
        assertEquals("fleet_url", badUrl.getSetting());
        assertTrue(badUrl.getMessage().startsWith("fleet_url must be redis://host:port or redis://host:port/db"),
                badUrl.getMessage());
        InvalidSettingException unnamed = assertThrows(InvalidSettingException.class,
                () -> Gate.builder().fleetUrl(redis.url).build());
        assertEquals("name", unnamed.getSetting());
        assertTrue(unnamed.getMessage().startsWith("name must not be empty for a fleet gate"), unnamed.getMessage());
    }
}

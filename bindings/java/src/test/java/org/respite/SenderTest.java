package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;

class SenderTest extends FaultServerTest {
    private static Policy retrying() {
        return Policy.builder("retry", 10000).handler("any_error", Strategy.RETRY).retryTimes(100).build();
    }

    /** The next event of a type, waiting up to 5 s; the ones before it are dropped. */
    private static Event next(BlockingQueue<Event> events, String type) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            Event e = events.poll(50, TimeUnit.MILLISECONDS);
            if (e != null && e.type().equals(type)) {
                return e;
            }
        }
        throw new AssertionError("no " + type + " event within 5 s");
    }

    private static void awaitDrained(Sender sender, double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < deadline) {
            QueueStats q = sender.stats().queue();
            if (q.pending() == 0 && q.inFlight() == 0) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("queue not drained within " + seconds + " s: " + sender.stats());
    }

    private static List<String> delivered() {
        List<String> events = new ArrayList<>();
        for (String body : server.deliveredBodies()) {
            events.addAll(List.of(body.split("\n")));
        }
        return events;
    }

    @Test
    void pausesProbesGrowsThePauseToTheMaximumAndDrainsAfterASuccessfulProbe() throws Exception {
        server.script("down body=overloaded");
        BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        List<LogRecord> warnings = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public synchronized void publish(LogRecord record) {
                warnings.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger logger = Logger.getLogger("org.respite.Sender");
        logger.addHandler(capture);
        try (Policy policy = retrying();
             Sender sender = Sender.builder(server.url).minEntriesPerMessage(1).timeoutSeconds(1)
                     .failuresToEnterRecovery(3).recoverySeconds(0.5).recoveryMultiplier(2).maxRecoverySeconds(1.0)
                     .policy(policy).name("usage").onEvent(events::add).build()) {
            sender.enqueue("e0");
            Event failed = next(events, "send_failed");
            assertEquals(503, failed.httpStatus());
            assertEquals("overloaded", failed.detail());
            Event started = next(events, "recovery_started");
            assertEquals(0.5, started.pause(), 1e-9); // long enough for a loaded machine's 100 ms sleep
            long atPause = server.requests();
            assertEquals(3, atPause, "three failures open the gate");
            assertTrue(sender.stats().paused());
            Thread.sleep(100);
            assertEquals(atPause, server.requests(), "nothing is sent during the pause");
            for (int i = 1; i < 20; i++) {
                sender.enqueue("e" + i); // queued while paused, never blocking
            }
            TemporarilyUnavailableException refused = assertThrows(TemporarilyUnavailableException.class,
                    () -> sender.flush(1));
            assertTrue(refused.getRetryAfter() > 0 && refused.getRetryAfter() <= 0.5, "" + refused.getRetryAfter());

            assertEquals(1.0, next(events, "recovery_extended").pause(), 1e-9);
            assertEquals(atPause + 1, server.requests(), "one probe when the pause ended");
            assertEquals(1.0, next(events, "recovery_extended").pause(), 1e-9, "capped at max_recovery_seconds");
            assertEquals(atPause + 2, server.requests());

            server.script("healthy");
            next(events, "recovered");
            awaitDrained(sender, 3);
            assertEquals(20, sender.stats().queue().delivered());
            List<String> arrived = delivered();
            assertEquals(20, arrived.size());
            assertEquals(20, new java.util.HashSet<>(arrived).size());
        } finally {
            logger.removeHandler(capture);
        }
        synchronized (capture) {
            assertTrue(warnings.stream().anyMatch(r -> r.getLevel() == Level.WARNING
                    && r.getMessage().equals("usage: send failed: HTTP 503: overloaded")), "send_failed warning");
            assertTrue(warnings.stream().anyMatch(r -> r.getLevel() == Level.WARNING
                    && r.getMessage().equals(
                    "usage: recovery started: 3 failures within 100s; requests paused for 0.5s")),
                    "recovery_started warning, with the sender's name");
            assertTrue(warnings.stream().anyMatch(r -> r.getLevel() == Level.INFO
                    && r.getMessage().equals("usage: recovered: the service answered; requests resume")), "recovered info");
        }
    }

    @Test
    void producersNeverBlockWhileTheServerHangs() throws Exception {
        server.script("hang for=5");
        try (Sender sender = Sender.builder(server.url).minEntriesPerMessage(1).timeoutSeconds(2)
                .closeTimeoutSeconds(0.2).build()) {
            sender.enqueue("first");
            Thread.sleep(50); // the first send is now hanging
            long worst = 0;
            long start = System.nanoTime();
            for (int i = 0; i < 500; i++) {
                long t = System.nanoTime();
                sender.enqueue("event " + i);
                worst = Math.max(worst, System.nanoTime() - t);
            }
            long total = System.nanoTime() - start;
            assertTrue(total < 100_000_000L, "500 enqueues took " + total / 1e6 + " ms");
            assertTrue(worst < 20_000_000L, "slowest enqueue " + worst / 1e6 + " ms");
            assertEquals(1, sender.stats().queue().inFlight());
            long closeStart = System.nanoTime();
            long unsent = sender.closeAndCountUnsent();
            double closeSeconds = (System.nanoTime() - closeStart) / 1e9;
            assertTrue(closeSeconds < 1.0, "close took " + closeSeconds + " s");
            assertTrue(unsent >= 500, "unsent " + unsent);
        }
    }

    @Test
    void closeWhilePausedReturnsAtOnceWithTheUnsentCount() throws Exception {
        server.script("down");
        BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        try (Policy policy = retrying();
             Sender sender = Sender.builder(server.url).minEntriesPerMessage(1).failuresToEnterRecovery(1)
                     .recoverySeconds(10).policy(policy).onEvent(events::add).build()) {
            sender.enqueue("a");
            next(events, "recovery_started");
            for (int i = 0; i < 5; i++) {
                sender.enqueue("b" + i);
            }
            long start = System.nanoTime();
            long unsent = sender.closeAndCountUnsent();
            long took = System.nanoTime() - start;
            assertTrue(took < 100_000_000L, "close while paused took " + took / 1e6 + " ms");
            assertEquals(6, unsent);
            assertEquals(6, sender.closeAndCountUnsent(), "a second close returns the same count");
            Event left = next(events, "unsent_at_close");
            assertEquals(6, left.count());
            assertEquals("closed with 6 events not sent", left.message());
            assertTrue(left.warning());
            SenderStats stats = sender.stats();
            assertTrue(stats.closed());
            assertEquals(6, stats.engine().unsent());
            assertEquals(1, server.requests());
            assertEquals("sender is closed", assertThrows(ClosedException.class, () -> sender.enqueue("late"))
                    .getMessage());
            assertThrows(ClosedException.class, () -> sender.flush(1));
        }
    }

    @Test
    void closeWhileHealthyDeliversEverything() throws Exception {
        Sender sender = Sender.builder(server.url).header("X-Api-Key", "secret").build(); // min 50: nothing sent yet
        for (int i = 0; i < 30; i++) {
            sender.enqueue("{\"n\":" + i + "}");
        }
        assertEquals(0, server.requests());
        sender.close();
        assertEquals(0, sender.closeAndCountUnsent());
        List<String> arrived = delivered();
        assertEquals(30, arrived.size());
        for (int i = 0; i < 30; i++) {
            assertEquals("{\"n\":" + i + "}", arrived.get(i));
        }
        assertEquals(1, sender.stats().requests());
    }

    @Test
    void flushSendsBelowTheMinimum() {
        try (Sender sender = Sender.builder(server.url).build()) {
            sender.enqueue("one".getBytes());
            sender.enqueue("two");
            sender.flush(2);
            assertEquals(List.of("one", "two"), delivered());
            assertEquals(2, sender.stats().queue().delivered());
        }
    }

    @Test
    void randomFaultsKeepTheAccountingAndDeliverEachEventOnce() throws Exception {
        server.script("random p=0.3 seed=7 faults=500,503,429,reset,close");
        int count = 2000;
        try (Policy policy = Policy.builder("random", 5000).handler("any_error", Strategy.RETRY).retryTimes(3)
                .build();
             Sender sender = Sender.builder(server.url).minEntriesPerMessage(10).timeoutSeconds(1)
                     .failuresToEnterRecovery(3).recoverySeconds(0.02).maxRecoverySeconds(0.05)
                     .recoveryMultiplier(2).closeTimeoutSeconds(5).policy(policy).build()) {
            for (int i = 0; i < count; i++) {
                sender.enqueue("r" + i);
            }
            // Fewer than min_entries_per_message may be left after retries: flush
            // sends them; while paused it refuses at once and we try again.
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (true) {
                try {
                    sender.flush(1);
                    break;
                } catch (TemporarilyUnavailableException | TransportException e) {
                    assertTrue(System.nanoTime() < deadline, "not drained within 20 s: " + sender.stats());
                    Thread.sleep(10);
                }
            }
            assertEquals(0, sender.closeAndCountUnsent());
            QueueStats q = sender.stats().queue();
            assertEquals(count, q.accepted());
            assertEquals(q.accepted(), q.delivered() + q.droppedCapacity() + q.expired() + q.retriesExhausted()
                    + q.discarded() + q.pending() + q.inFlight(), q.toString());
            assertTrue(q.balanced());
            assertTrue(q.delivered() > count / 2, q.toString());
            Map<String, Integer> seen = new HashMap<>();
            for (String event : delivered()) {
                seen.merge(event, 1, Integer::sum);
            }
            assertEquals(q.delivered(), seen.size(), "every delivered event arrived");
            seen.forEach((event, times) -> assertEquals(1, times, event + " arrived " + times + " times"));
            assertTrue(sender.stats().engine().sendsFailed() > 0, "the script made sends fail");
        }
    }

    @Test
    void badSettingsAndHeadersAreRefusedByTheCore() {
        InvalidSettingException noUrl = assertThrows(InvalidSettingException.class, () -> Sender.builder().build());
        assertEquals("url", noUrl.getSetting());
        assertEquals("url must be an http:// or https:// URL (got '')", noUrl.getMessage());
        assertThrows(InvalidArgumentException.class,
                () -> Sender.builder(server.url).header("Bad Name", "v").build());
        try (Sender sender = Sender.builder(server.url).build()) {
            assertThrows(InvalidArgumentException.class, () -> sender.addHeader("X-Ok", "line\nbreak"));
        }
    }
}

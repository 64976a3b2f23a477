package org.respite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class ClientTest extends FaultServerTest {
    @Test
    void tenTimeoutsOpenRecoveryAndARefusedCallIsCheapAndSilent() {
        server.script("hang for=5");
        try (Gate gate = Gate.builder().failuresToEnterRecovery(10).recoverySeconds(30).build();
             Client client = Client.builder().gate(gate).timeoutSeconds(0.2).build()) {
            for (int i = 0; i < 10; i++) {
                Response r = client.get(server.url);
                assertEquals(0, r.status());
                assertEquals(Outcome.TRANSPORT, r.outcome());
                assertTrue(!r.error().isEmpty(), "a transport failure carries libcurl's text");
            }
            server.reset();
            long[] nanos = new long[20];
            for (int i = 0; i < nanos.length; i++) {
                long start = System.nanoTime();
                TemporarilyUnavailableException refused = assertThrows(TemporarilyUnavailableException.class,
                        () -> client.get(server.url));
                nanos[i] = System.nanoTime() - start;
                assertTrue(refused.getRetryAfter() > 25 && refused.getRetryAfter() <= 30, "" + refused.getRetryAfter());
                assertTrue(refused.getMessage().startsWith(
                        "sending requests to the service is temporarily restricted due to recent failures"),
                        refused.getMessage());
            }
            assertEquals(0, server.requests(), "no request reaches the server during the pause");
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            assertTrue(sorted[sorted.length / 2] < 1_000_000, "median refused call " + sorted[sorted.length / 2] + " ns");
            assertTrue(nanos[nanos.length - 1] < 1_000_000, "last refused call " + nanos[nanos.length - 1] + " ns");
            assertEquals(GateState.OPEN, gate.state());
        }
    }

    @Test
    void oneVisitorsNotFoundsNeverOpenTheGateButTenServiceUnavailablesDo() {
        server.script("404");
        try (Gate gate = Gate.builder().failuresToEnterRecovery(10).recoverySeconds(30).build();
             Client client = Client.builder().gate(gate).timeoutSeconds(1).build()) {
            for (int i = 0; i < 30; i++) {
                Response r = client.get(server.url + "missing");
                assertEquals(404, r.status());
                assertEquals(Outcome.REQUEST_ERROR, r.outcome());
            }
            assertEquals(30, server.requests());
            assertEquals(GateState.CLOSED, gate.state());

            server.script("503");
            for (int i = 0; i < 10; i++) {
                assertEquals(Outcome.SERVER_ERROR, client.get(server.url).outcome());
            }
            assertThrows(TemporarilyUnavailableException.class, () -> client.get(server.url));
            assertEquals(40, server.requests());
        }
    }

    @Test
    void responseCarriesStatusHeadersBodyAttemptsAndElapsed() {
        server.script("2*503 retry_after=0.05; 201 body=created header=X-Request-Id:42");
        try (Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(0.01).build();
             Client client = Client.builder().backoff(backoff).timeoutSeconds(1).userAgent("java-test").build()) {
            Response r = client.request("POST", server.url, Map.of("X-Api-Key", "secret"), "payload");
            assertEquals(201, r.status());
            assertEquals(Outcome.SUCCESS, r.outcome());
            assertTrue(r.ok());
            assertEquals("created", r.text());
            assertArrayEquals("created".getBytes(), r.body());
            assertEquals("42", r.header("x-request-id"));
            assertEquals(null, r.header("X-Missing"));
            assertEquals(3, r.attempts());
            assertTrue(r.elapsedSeconds() >= 0.1, "two Retry-After sleeps of 0.05 s: " + r.elapsedSeconds());
            assertEquals("", r.error());
            assertEquals(3, server.requests());
            r.close();
            assertThrows(ClosedException.class, () -> r.header("X-Request-Id"));
            assertEquals(201, r.status());
        }
    }

    @Test
    void unusableSuccessCountsAsAFailure() {
        server.script("200 body=");
        try (Gate gate = Gate.builder().failuresToEnterRecovery(2).recoverySeconds(30).build();
             Client client = Client.builder().gate(gate).build()) {
            Response first = client.get(server.url);
            assertEquals(Outcome.SUCCESS, first.outcome());
            client.reportUnusable(first);
            assertEquals(Outcome.UNUSABLE, first.outcome());
            client.reportUnusable(first); // a second report changes nothing
            assertEquals(GateState.CLOSED, gate.state());
            Response second = client.get(server.url);
            client.reportUnusable(second);
            assertEquals(GateState.OPEN, gate.state());

            server.script("404");
            gate.reset();
            Response notFound = client.get(server.url);
            InvalidArgumentException wrong = assertThrows(InvalidArgumentException.class,
                    () -> client.reportUnusable(notFound));
            assertEquals("only a success can be reported unusable (the response's outcome is request_error)",
                    wrong.getMessage());
        }
    }

    @Test
    void badArgumentsAreRefusedWithTheCoresMessagesAndNothingIsSent() {
        try (Client client = Client.builder().build()) {
            assertEquals("method must be an HTTP method such as GET or POST (got 'GE T')",
                    assertThrows(InvalidArgumentException.class, () -> client.request("GE T", server.url, null,
                            (byte[]) null)).getMessage());
            assertEquals("url must be an http:// or https:// URL (got 'ftp://example.com/')",
                    assertThrows(InvalidArgumentException.class, () -> client.get("ftp://example.com/")).getMessage());
            assertEquals(0, server.requests());
        }
        InvalidSettingException bad = assertThrows(InvalidSettingException.class,
                () -> Client.builder().timeoutSeconds(0).build());
        assertEquals("timeout_seconds", bad.getSetting());
    }

    @Test
    void useAfterCloseIsAClosedException() {
        Client client = Client.builder().build();
        client.close();
        client.close();
        assertEquals("client is closed", assertThrows(ClosedException.class, () -> client.get(server.url)).getMessage());
        Gate gate = Gate.builder().build();
        gate.close();
        assertEquals("gate is closed", assertThrows(ClosedException.class,
                () -> Client.builder().gate(gate).build()).getMessage());
    }

    @Test
    void aClosedResponseIsRefusedInTheCoreWords() {
        try (Client client = Client.builder().build()) {
            Response response = client.get(server.url);
            response.close();
            assertEquals("response is closed", assertThrows(ClosedException.class,
                    () -> client.reportUnusable(response)).getMessage());
        }
    }

    @Test
    void aCancelledRequestEndsWithin100MillisecondsAndCountsNothing() throws Exception {
        server.script("hang");
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(30).build();
             Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(5).maxDelaySeconds(5).build();
             Client client = Client.builder().gate(gate).backoff(backoff).timeoutSeconds(10).build();
             CancelToken token = new CancelToken()) {
            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
            try {
                long start = System.nanoTime(); // before the timer starts: took is never under its 200 ms
                timer.schedule(token::cancel, 200, TimeUnit.MILLISECONDS);
                CancelledException cancelled = assertThrows(CancelledException.class,
                        () -> client.request("GET", server.url, null, (byte[]) null, token));
                double took = (System.nanoTime() - start) / 1e9;
                // C10: within 100 ms of the cancel (margin for a loaded machine)
                assertTrue(took > 0.19 && took < 0.7, "took " + took + " s");
                assertTrue(cancelled.getMessage().contains("cancelled"), cancelled.getMessage());
                assertTrue(token.isCancelled());
                assertEquals(GateState.CLOSED, gate.state());
                assertEquals(0, gate.stats().countedFailures(), "G19: released, not counted");

                // cancelled stays so: the next call ends before the gate or the server sees it
                server.reset();
                long admitted = gate.stats().admitted();
                assertThrows(CancelledException.class, () -> client.request("POST", server.url, null, "x", token));
                assertEquals(0, server.requests());
                assertEquals(admitted, gate.stats().admitted());

                // cancelling requestAsync's future ends its transfer: else its 1 s timeout would count
                server.script("hang");
                try (Client quick = Client.builder().gate(gate).timeoutSeconds(1).build()) {
                    CompletableFuture<Response> pending = quick.requestAsync("GET", server.url, null, null);
                    Thread.sleep(200);
                    assertTrue(pending.cancel(true));
                    Thread.sleep(1500);
                    assertEquals(0, gate.stats().countedFailures(), "the cancelled transfer was not counted");
                    assertEquals(GateState.CLOSED, gate.state());
                }
            } finally {
                timer.shutdownNow();
            }
        }
    }
}

package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;
import org.respite.http.GatedHttpClient;

/** Issue 21: the JDK's HttpClient through a gate (and a back-off), sync and async, against the fault server. */
class GatedHttpClientTest extends FaultServerTest {
    private static final HttpClient JDK = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build();
    }

    private static HttpRequest get() {
        return get(server.url);
    }

    private static int send(HttpClient http) throws Exception {
        return http.send(get(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static int sendAsync(HttpClient http) throws Exception {
        return http.sendAsync(get(), HttpResponse.BodyHandlers.discarding()).get().statusCode();
    }

    private static Gate gate(int failures, double recoverySeconds) {
        return Gate.builder().failuresToEnterRecovery(failures).failuresWindowSeconds(10)
                .recoverySeconds(recoverySeconds).maxRecoverySeconds(60).build();
    }

    /** A local URL nobody listens on: connecting is refused. */
    private static String refusedUrl() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "http://127.0.0.1:" + socket.getLocalPort() + "/";
        }
    }

    @Test
    void threeFailuresOpenTheGateAndTheNextRequestNeverReachesTheServer() throws Exception {
        server.script("down");
        try (Gate gate = gate(3, 60)) {
            HttpClient http = GatedHttpClient.wrap(JDK, gate);
            assertEquals(503, send(http));
            assertEquals(503, sendAsync(http));
            assertEquals(503, send(http));
            assertEquals(GateState.OPEN, gate.state());
            TemporarilyUnavailableException refused = assertThrows(TemporarilyUnavailableException.class,
                    () -> send(http));
            assertTrue(refused.getRetryAfter() > 59 && refused.getRetryAfter() <= 60, "" + refused.getRetryAfter());
            ExecutionException failed = assertThrows(ExecutionException.class, () -> sendAsync(http));
            assertInstanceOf(TemporarilyUnavailableException.class, failed.getCause());
            assertEquals(3, server.requests(), "the refused requests sent nothing");
            assertEquals(3, gate.stats().countedFailures());
            assertEquals(2, gate.stats().refused());
        }
    }

    @Test
    void a404NeverCounts() throws Exception {
        server.script("404");
        try (Gate gate = gate(1, 60)) {
            HttpClient http = GatedHttpClient.wrap(JDK, gate);
            assertEquals(404, send(http));
            assertEquals(404, sendAsync(http));
            assertEquals(404, send(http));
            assertEquals(GateState.CLOSED, gate.state());
            assertEquals(0, gate.stats().countedFailures());
            assertEquals(3, gate.stats().reported());
        }
    }

    @Test
    void a429WithRetryAfter7PausesSevenSeconds() throws Exception {
        server.script("429 retry_after=7");
        for (boolean async : new boolean[] {false, true}) {
            try (Gate gate = gate(1, 1)) {
                HttpClient http = GatedHttpClient.wrap(JDK, gate);
                assertEquals(429, async ? sendAsync(http) : send(http));
                TemporarilyUnavailableException refused = assertThrows(TemporarilyUnavailableException.class,
                        () -> send(http));
                assertTrue(refused.getRetryAfter() > 6.5 && refused.getRetryAfter() <= 7,
                        "the hint lengthened the 1 s pause (G15): " + refused.getRetryAfter());
            }
        }
        assertEquals(2, server.requests());
    }

    @Test
    void retryAfterOnAnotherStatusIsNoHint() throws Exception {
        server.script("500 retry_after=7"); // C6: only 429 and 503 carry one
        try (Gate gate = gate(1, 1)) {
            assertEquals(500, send(GatedHttpClient.wrap(JDK, gate)));
            assertTrue(gate.retryAfter() > 0.5 && gate.retryAfter() <= 1, "" + gate.retryAfter());
        }
    }

    @Test
    void aRefusedConnectionCountsAsTransport() throws Exception {
        String url = refusedUrl();
        try (Gate gate = gate(2, 60)) {
            HttpClient http = GatedHttpClient.wrap(JDK, gate);
            assertThrows(ConnectException.class, () -> http.send(get(url), HttpResponse.BodyHandlers.discarding()));
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> http.sendAsync(get(url), HttpResponse.BodyHandlers.discarding()).get());
            assertInstanceOf(ConnectException.class, failed.getCause());
            assertEquals(GateState.OPEN, gate.state());
            assertEquals(2, gate.stats().countedFailures());
        }
    }

    @Test
    void theBackoffRetriesFailuresThroughTheGate() throws Exception {
        try (Gate gate = gate(10, 60);
                Backoff backoff = Backoff.builder().maxAttempts(4).initialDelaySeconds(0.01).build()) {
            HttpClient http = GatedHttpClient.wrap(JDK, gate, backoff);
            server.script("2*503; 200");
            assertEquals(200, send(http));
            assertEquals(3, server.requests());
            server.reset();
            server.script("2*503; 200");
            assertEquals(200, sendAsync(http));
            assertEquals(3, server.requests());
            assertEquals(4, gate.stats().countedFailures());
        }
    }

    @Test
    void theBackoffGivesUpWithTheLastAnswerAndNeverRetriesA404() throws Exception {
        try (Gate gate = gate(10, 60);
                Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(0.01).build()) {
            HttpClient http = GatedHttpClient.wrap(JDK, gate, backoff);
            server.script("down");
            assertEquals(503, sendAsync(http));
            assertEquals(3, server.requests());
            server.reset();
            server.script("404");
            assertEquals(404, send(http));
            assertEquals(1, server.requests());
        }
    }

    @Test
    void theBackoffWaitsAtLeastTheRetryAfter() throws Exception {
        server.script("429 retry_after=0.3; 200");
        try (Gate gate = gate(10, 60);
                Backoff backoff = Backoff.builder().maxAttempts(2).initialDelaySeconds(0.01).build()) {
            long started = System.nanoTime();
            assertEquals(200, send(GatedHttpClient.wrap(JDK, gate, backoff)));
            assertTrue(System.nanoTime() - started >= 300_000_000L, "B7: the hint raised the 0.01 s delay");
        }
    }

    @Test
    void theBackoffStopsWhenTheGateOpens() throws Exception {
        server.script("down");
        try (Gate gate = gate(2, 60);
                Backoff backoff = Backoff.builder().maxAttempts(5).initialDelaySeconds(0.01).build()) {
            HttpClient http = GatedHttpClient.wrap(JDK, gate, backoff);
            assertThrows(TemporarilyUnavailableException.class, () -> send(http));
            assertEquals(2, server.requests(), "B12: asked before every attempt");
        }
    }

    @Test
    void afterTheLastConnectionFailureItIsThrownWithTheGiveUp() throws Exception {
        String url = refusedUrl();
        try (Gate gate = gate(10, 60);
                Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(0.01).build()) {
            HttpClient http = GatedHttpClient.wrap(JDK, gate, backoff);
            ConnectException last = assertThrows(ConnectException.class,
                    () -> http.send(get(url), HttpResponse.BodyHandlers.discarding()));
            assertEquals("the call failed after 3 attempts: last outcome transport",
                    last.getSuppressed()[0].getMessage());
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> http.sendAsync(get(url), HttpResponse.BodyHandlers.discarding()).get());
            assertInstanceOf(ConnectException.class, failed.getCause());
            assertInstanceOf(TransportException.class, failed.getCause().getSuppressed()[0]);
            assertEquals(6, gate.stats().countedFailures());
        }
    }

    @Test
    void itIsTheWrappedClientForEverythingElse() {
        try (Gate gate = gate(3, 60)) {
            GatedHttpClient http = GatedHttpClient.wrap(JDK, gate);
            assertSame(JDK, http.client());
            assertEquals(JDK.connectTimeout(), http.connectTimeout());
            assertEquals(JDK.followRedirects(), http.followRedirects());
            assertEquals(JDK.version(), http.version());
            assertTrue(http.backoff().isEmpty());
        }
    }
}

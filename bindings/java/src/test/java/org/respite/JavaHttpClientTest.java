package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

/** Issue 20: the JDK's own HTTP client through a gate and retries, as the guide shows it. */
class JavaHttpClientTest extends FaultServerTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpRequest request() {
        return HttpRequest.newBuilder(URI.create(server.url + "items")).timeout(Duration.ofMillis(500)).build();
    }

    @Test
    void backoffCallTakesWorkThatThrowsCheckedExceptions() throws Exception {
        // Before: Backoff.call took a Supplier, and this did not compile (IOException, InterruptedException).
        server.script("2*503; 200 body=ok");
        try (Gate gate = Gate.builder().failuresToEnterRecovery(5).build();
                Backoff backoff = Backoff.builder().maxAttempts(4).initialDelaySeconds(0.01).build()) {
            HttpResponse<String> response = backoff.call(gate,
                    () -> http.send(request(), HttpResponse.BodyHandlers.ofString()));
            assertEquals(200, response.statusCode());
            assertEquals("ok", response.body());
            assertEquals(2, gate.stats().countedFailures(), "each returned 503 counted");
        }
    }

    @Test
    void aTimeoutCountsAsTransport() {
        server.script("hang for=2");
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(60).build()) {
            assertThrows(HttpTimeoutException.class,
                    () -> gate.call(() -> http.send(request(), HttpResponse.BodyHandlers.ofString())));
            assertEquals(GateState.OPEN, gate.state());
        }
    }

    @Test
    void sendAsyncThroughGateAndRetries() {
        server.script("503; 201 body=made");
        try (Gate gate = Gate.builder().failuresToEnterRecovery(5).build();
                Backoff backoff = Backoff.builder().maxAttempts(3).initialDelaySeconds(0.01).build()) {
            HttpResponse<String> response = backoff.callAsync(gate,
                    () -> http.sendAsync(request(), HttpResponse.BodyHandlers.ofString())).join();
            assertEquals(201, response.statusCode());
            assertEquals(1, gate.stats().countedFailures());
        }
    }

    @Test
    void clientRequestAsync() throws IOException {
        server.script("200 body=hello");
        try (Client client = Client.builder().build()) {
            Response response = client.requestAsync("GET", server.url, null, null).join();
            assertEquals("hello", response.text());
            assertEquals(200, response.status());
        }
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).build();
                Client client = Client.builder().gate(gate).build()) {
            gate.report(gate.acquire(), Outcome.TRANSPORT);
            CompletionException refused = assertThrows(CompletionException.class,
                    () -> client.requestAsync("GET", server.url, null, null).join());
            assertEquals(TemporarilyUnavailableException.class, refused.getCause().getClass());
        }
    }
}

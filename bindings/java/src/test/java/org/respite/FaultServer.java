package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The repo's respite-fault-server program (tools/fault_server), started as a
 * subprocess: RESPITE_FAULT_SERVER if set, else the one the pom builds
 * (system property respite.fault.server); scripted and inspected over
 * /__control/. Its stdin is a pipe, so it exits with the test JVM.
 */
final class FaultServer implements AutoCloseable {
    private static final Pattern REQUESTS = Pattern.compile("\"requests\":(\\d+)");
    private static final Pattern RECEIVED = Pattern.compile(
            "\\{\"method\":\"[A-Z]+\",\"path\":\"[^\"]*\",\"status\":(\\d+),.*?\"body\":\"((?:[^\"\\\\]|\\\\.)*)\"\\}");

    private final Process process;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    final String url;

    FaultServer(String script) throws IOException {
        String path = System.getenv("RESPITE_FAULT_SERVER");
        if (path == null || path.isEmpty()) {
            path = System.getProperty("respite.fault.server");
        }
        assertNotNull(path, "no respite-fault-server: set RESPITE_FAULT_SERVER or run the tests through Maven");
        process = new ProcessBuilder(path, "--exit-on-eof", "--script", script)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String port = out.readLine();
        assertNotNull(port, "respite-fault-server printed no port");
        url = "http://127.0.0.1:" + port.trim() + "/";
    }

    private String control(String method, String path, String body) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "__control/" + path))
                    .timeout(Duration.ofSeconds(5));
            request = body == null ? request.method(method, HttpRequest.BodyPublishers.noBody())
                    : request.method(method, HttpRequest.BodyPublishers.ofString(body));
            HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode(), answer.body());
            return answer.body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    void script(String script) {
        control("POST", "script", script);
    }

    /** Script back to healthy, counts and records cleared. */
    void reset() {
        control("POST", "reset", null);
    }

    long requests() {
        Matcher m = REQUESTS.matcher(control("GET", "stats?bodies=0", null));
        if (!m.find()) {
            throw new IllegalStateException("no request count in the statistics");
        }
        return Long.parseLong(m.group(1));
    }

    /** The statistics document with every request received, as the server wrote it (UTF-8 JSON). */
    String received() {
        return control("GET", "stats", null);
    }

    /** Bodies of the requests answered with a 2xx status, in arrival order (JSON escapes undone). */
    List<String> deliveredBodies() {
        List<String> bodies = new ArrayList<>();
        Matcher m = RECEIVED.matcher(control("GET", "stats", null));
        while (m.find()) {
            int status = Integer.parseInt(m.group(1));
            if (status >= 200 && status < 300) {
                bodies.add(unescape(m.group(2)));
            }
        }
        return bodies;
    }

    private static String unescape(String json) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c != '\\') {
                text.append(c);
                continue;
            }
            char e = json.charAt(++i);
            switch (e) {
                case 'n' -> text.append('\n');
                case 't' -> text.append('\t');
                case 'r' -> text.append('\r');
                case 'u' -> {
                    text.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> text.append(e);
            }
        }
        return text.toString();
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        process.waitFor();
    }
}

package org.respite;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.respite.internal.NativeHandle;
import org.respite.internal.NativeSettings;
import org.respite.internal.Utf8;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_handle_kind;

/**
 * An HTTP request client through a {@link Gate} (spec section 6): a refusal
 * throws {@link TemporarilyUnavailableException} and makes no network call;
 * retries follow the {@link Backoff}. Safe to share between threads. It holds
 * its own references to the gate and back-off (close them in any order).
 */
public final class Client extends NativeObject {
    private final Gate gate;
    private final Runnable gateEvents; // after every call: the gate's events rule

    private Client(long pointer, Gate gate) {
        super(pointer, RespiteNative::respite_client_free);
        this.gate = gate;
        this.gateEvents = gate == null ? () -> {} : gate::pollIfPending;
    }

    /** A builder starting from the "client" defaults (timeout_seconds 2, user_agent "respite"). */
    public static Builder builder() {
        return new Builder();
    }

    /** The gate the client calls through, or null. */
    public Gate gate() {
        return gate;
    }

    /**
     * One call (C1-C8). {@code headers}: name to value (may be null);
     * {@code body}: may be null. A failed transport or an error status is a
     * response (see {@link Response#outcome()}), not an exception.
     *
     * @throws TemporarilyUnavailableException the gate refused (nothing was sent)
     * @throws InvalidArgumentException a bad method, URL or header (the core's message)
     */
    public Response request(String method, String url, Map<String, String> headers, byte[] body) {
        return new Response(apply(p -> RespiteNative.respite_client_request(p, method, url, headerLines(headers),
                body), gateEvents));
    }

    /**
     * As {@link #request(String, String, Map, byte[])}, ended by {@code cancel}
     * (C10): once it is cancelled, from any thread, this throws
     * {@link CancelledException} within 100 ms and the attempt in flight is
     * released from the gate uncounted (G19).
     */
    public Response request(String method, String url, Map<String, String> headers, byte[] body,
            CancelToken cancel) {
        return new Response(apply(p -> NativeHandle.use(cancel == null ? null : cancel.handle, respite_handle_kind.RESPITE_HANDLE_CANCEL_TOKEN,
                c -> RespiteNative.respite_client_request_with(p, method, url, headerLines(headers), body, c)),
                gateEvents));
    }

    /** As {@link #request(String, String, Map, byte[])} with a UTF-8 text body. */
    public Response request(String method, String url, Map<String, String> headers, String body) {
        return request(method, url, headers, Utf8.bytes(body));
    }

    /** As {@link #request(String, String, Map, byte[], CancelToken)} with a UTF-8 text body. */
    public Response request(String method, String url, Map<String, String> headers, String body,
            CancelToken cancel) {
        return request(method, url, headers, Utf8.bytes(body), cancel);
    }

    /**
     * {@link #request(String, String, Map, byte[])} on {@code executor}: the returned
     * stage completes with the response, or fails with the refusal
     * ({@link TemporarilyUnavailableException}) or the core's error. libcurl's transfer
     * blocks the executor's thread; the sleeps between retries happen there too.
     * Cancelling the future ends the transfer within 100 ms (C10, G19).
     */
    public CompletableFuture<Response> requestAsync(String method, String url, Map<String, String> headers,
            byte[] body, Executor executor) {
        CancelToken cancel = new CancelToken();
        CompletableFuture<Response> future = CompletableFuture.supplyAsync(
                () -> request(method, url, headers, body, cancel), executor);
        // cancel(true) on the future ends the transfer too (C10), its attempt uncounted; the
        // token is freed once the call in flight (if any) has left it
        future.whenComplete((response, failure) -> {
            if (future.isCancelled()) {
                cancel.cancel();
            }
            cancel.close();
        });
        return future;
    }

    /** As {@link #requestAsync(String, String, Map, byte[], Executor)} on a shared pool of daemon threads. */
    public CompletableFuture<Response> requestAsync(String method, String url, Map<String, String> headers,
            byte[] body) {
        return requestAsync(method, url, headers, body, AsyncPool.EXECUTOR);
    }

    /** Threads for requestAsync without an executor, made when first needed; idle ones end after a minute. */
    private static final class AsyncPool {
        static final Executor EXECUTOR = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), work -> {
                    Thread thread = new Thread(work, "respite-client-async");
                    thread.setDaemon(true);
                    return thread;
                });
    }

    public Response get(String url) {
        return request("GET", url, null, (byte[]) null);
    }

    public Response get(String url, Map<String, String> headers) {
        return request("GET", url, headers, (byte[]) null);
    }

    public Response post(String url, byte[] body) {
        return request("POST", url, null, body);
    }

    public Response post(String url, String body) {
        return request("POST", url, null, body);
    }

    public Response post(String url, Map<String, String> headers, String body) {
        return request("POST", url, headers, body);
    }

    /**
     * C4: the caller could not use a successful answer (empty, unparseable, an error
     * object): the gate counts one {@code unusable} failure, the response's outcome becomes it.
     */
    public void reportUnusable(Response response) {
        apply(p -> response.use(r -> RespiteNative.respite_client_report_unusable(p, r)), gateEvents);
        response.markUnusable();
    }

    /** "Name: value" lines separated by \n, as the core takes them; the core checks them. */
    private static String headerLines(Map<String, String> headers) {
        return headers == null || headers.isEmpty() ? null : headers.entrySet().stream()
                .map(header -> header.getKey() + ": " + header.getValue()).collect(Collectors.joining("\n"));
    }

    /** Builds a client: one method per "client" setting of the core's table ({@link ClientSettings}). */
    public static final class Builder extends SettingsBuilder<Builder> implements ClientSettings<Builder> {
        private Gate gate;
        private Backoff backoff;

        private Builder() {}

        /** The gate asked before every attempt (default none). */
        public Builder gate(Gate value) {
            this.gate = value;
            return this;
        }

        /** Retries follow this back-off (default none: one attempt). */
        public Builder backoff(Backoff value) {
            this.backoff = value;
            return this;
        }

        /** The client; {@link InvalidSettingException} names a setting the core does not accept. */
        public Client build() {
            return NativeSettings.with("client", values, s -> new Client(
                    NativeHandle.use(gate == null ? null : gate.handle, respite_handle_kind.RESPITE_HANDLE_GATE,
                            g -> NativeHandle.use(backoff == null ? null : backoff.handle, respite_handle_kind.RESPITE_HANDLE_BACKOFF,
                                    b -> RespiteNative.respite_client_new(s, g, b))), gate));
        }
    }
}

package org.respite;

import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.respite.internal.Errors;
import org.respite.internal.FastNative;
import org.respite.internal.NativeHandle;
import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNativeJNI;

/**
 * An HTTP request client through a {@link Gate} (spec section 6): before
 * every attempt the gate is asked; a refusal throws
 * {@link TemporarilyUnavailableException} with its retry_after and makes no
 * network call. Retries follow the {@link Backoff}. Safe to share between
 * threads; connections are reused.
 *
 * <pre>{@code
 * try (Gate gate = Gate.builder().build();
 *      Client client = Client.builder().gate(gate).timeoutSeconds(2).build()) {
 *     Response r = client.get("https://api.example.com/items");
 * }
 * }</pre>
 *
 * The gate and back-off are held by the client (they stay allocated while it
 * lives): close them only after the client. Gate transitions are logged by
 * the gate ({@code System.Logger} "org.respite.Gate").
 */
public final class Client implements AutoCloseable {
    private final NativeHandle handle;
    private final Gate gate;
    private final Backoff backoff;

    private Client(long pointer, Gate gate, Backoff backoff) {
        this.handle = new NativeHandle(this, pointer, RespiteNativeJNI::respite_client_free);
        this.gate = gate;
        this.backoff = backoff;
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
     * @throws ClosedException after {@link #close()}
     */
    public Response request(String method, String url, Map<String, String> headers, byte[] body) {
        long response;
        try {
            response = FastNative.clientRequest(handle.get(), method, url, headerLines(headers), body);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
            pollGateEvents();
        }
        return new Response(response);
    }

    /** As {@link #request(String, String, Map, byte[])} with a UTF-8 text body. */
    public Response request(String method, String url, Map<String, String> headers, String body) {
        return request(method, url, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
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
     * C4: the caller could not use a successful answer (empty, unparseable, an
     * error object): the gate counts one {@code unusable} failure and the
     * response's outcome becomes {@code unusable}. A second report of the same
     * response changes nothing; a response that is not a success:
     * {@link InvalidArgumentException}.
     */
    public void reportUnusable(Response response) {
        long pointer = response.pointer();
        if (pointer == 0) {
            throw NativeHandle.closed("response");
        }
        try {
            RespiteNativeJNI.respite_client_report_unusable(handle.get(), pointer);
            response.markUnusable();
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(response);
            pollGateEvents();
        }
    }

    private void pollGateEvents() {
        if (gate != null && !gate.isClosed()) {
            gate.pollEvents();
        }
    }

    /** "Name: value" lines separated by \n, as the core takes them; the core checks them. */
    private static String headerLines(Map<String, String> headers) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        StringBuilder lines = new StringBuilder();
        headers.forEach((name, value) -> {
            if (lines.length() > 0) {
                lines.append('\n');
            }
            lines.append(name).append(": ").append(value);
        });
        return lines.toString();
    }

    public boolean isClosed() {
        return handle.isClosed();
    }

    /** Closes the client: later calls throw {@link ClosedException} ("client is closed"). Idempotent. */
    @Override
    public void close() {
        handle.close();
    }

    /** Builds a client; methods are the spec's "client" setting names in camel case. */
    public static final class Builder extends SettingsBuilder<Builder> {
        private Gate gate;
        private Backoff backoff;

        private Builder() {}

        /** One attempt from connecting to the last byte, seconds (greater than 0, at most 86400; default 2). */
        public Builder timeoutSeconds(double value) {
            return set("timeout_seconds", value);
        }

        /** User-Agent of every request (default "respite"). */
        public Builder userAgent(String value) {
            return set("user_agent", value);
        }

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
            long settings = NativeSettings.make("client", values);
            try {
                long gatePointer = gate == null ? 0 : gate.pointerForEngine();
                long backoffPointer = backoff == null ? 0 : backoff.pointerForClient();
                if (gate != null && gatePointer == 0) {
                    throw NativeHandle.closed("gate");
                }
                if (backoff != null && backoffPointer == 0) {
                    throw NativeHandle.closed("backoff");
                }
                return new Client(RespiteNativeJNI.respite_client_new(settings, gatePointer, backoffPointer), gate,
                        backoff);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            } finally {
                NativeSettings.free(settings);
                Reference.reachabilityFence(gate);
                Reference.reachabilityFence(backoff);
            }
        }
    }
}

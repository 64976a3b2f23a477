package org.respite.http;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import org.respite.Backoff;
import org.respite.CheckedSupplier;
import org.respite.Gate;
import org.respite.TemporarilyUnavailableException;
import org.respite.TransportException;

/**
 * The JDK's {@link HttpClient} through a {@link Gate} and, optionally, a {@link Backoff}:
 * itself an {@code HttpClient}, so code that takes one (an SDK) gets the gate unchanged.
 *
 * <p>Every request asks the gate first: refused, {@link #send} throws
 * {@link TemporarilyUnavailableException} (with its retry_after) and {@link #sendAsync} returns a
 * future failed with it; nothing is sent. An answer is reported by its status (5xx and 429
 * count, other 4xx never) with its Retry-After (the gate's {@link org.respite.Classifier}); an
 * {@code IOException} (refused, reset, timeout) counts as {@code transport} and propagates
 * unchanged. With a back-off, failed attempts are retried after the core's delay, each through
 * the gate ({@link Backoff#call(Gate, CheckedSupplier)}): the last answer is returned (a 503
 * after the last attempt too, taken from the give-up's {@link TransportException#getResult()}, as
 * an HTTP client answers, spec B20); after the last {@code IOException} that exception is thrown, with
 * the core's give-up error ({@link TransportException}) as a suppressed exception. The async path
 * waits on no thread: the outcome is reported when the response arrives.
 *
 * <p>Settings (timeouts, redirects, executor...) are the wrapped client's; WebSockets are not
 * gated, so {@link #newWebSocketBuilder()} is not offered.
 */
public final class GatedHttpClient extends HttpClient {
    private final HttpClient client;
    private final Gate gate;
    private final Backoff backoff; // null: one attempt per request

    private GatedHttpClient(HttpClient client, Gate gate, Backoff backoff) {
        this.client = Objects.requireNonNull(client, "client");
        this.gate = Objects.requireNonNull(gate, "gate");
        this.backoff = backoff;
    }

    /** {@code client}'s requests through {@code gate}, one attempt each. */
    public static GatedHttpClient wrap(HttpClient client, Gate gate) {
        return new GatedHttpClient(client, gate, null);
    }

    /** {@code client}'s requests through {@code gate}, retried by {@code backoff}. */
    public static GatedHttpClient wrap(HttpClient client, Gate gate, Backoff backoff) {
        return new GatedHttpClient(client, gate, Objects.requireNonNull(backoff, "backoff"));
    }

    /** The wrapped client. */
    public HttpClient client() {
        return client;
    }

    public Gate gate() {
        return gate;
    }

    /** The back-off, if any. */
    public Optional<Backoff> backoff() {
        return Optional.ofNullable(backoff);
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        CheckedSupplier<HttpResponse<T>, Exception> attempt = () -> client.send(request, handler);
        try {
            return backoff == null ? gate.call(attempt) : backoff.call(gate, attempt);
        } catch (TransportException gaveUp) {
            if (gaveUp.getResult() != null) {
                return answer(gaveUp);
            }
            if (lastFailure(gaveUp) instanceof IOException last) {
                throw last;
            }
            throw gaveUp;
        } catch (IOException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError("HttpClient.send threw an exception it does not declare", e);
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
            HttpResponse.BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        Supplier<CompletionStage<HttpResponse<T>>> attempt = () -> client.sendAsync(request, handler,
                pushPromiseHandler);
        if (backoff == null) {
            return gate.callAsync(attempt);
        }
        CompletableFuture<HttpResponse<T>> done = new CompletableFuture<>();
        backoff.callAsync(gate, attempt).whenComplete((response, failure) -> {
            if (failure == null) {
                done.complete(response);
            } else if (failure instanceof TransportException gaveUp && gaveUp.getResult() != null) {
                done.complete(answer(gaveUp));
            } else {
                done.completeExceptionally(lastFailure(failure));
            }
        });
        return done;
    }

    /** After giving up on an answer (a 503): that answer, which the give-up carries (B20). */
    @SuppressWarnings("unchecked") // the retried work returned an HttpResponse<T>
    private static <T> HttpResponse<T> answer(TransportException gaveUp) {
        return (HttpResponse<T>) gaveUp.getResult();
    }

    /** After giving up on exceptions: the last one, carrying the core's give-up error; else {@code failure}. */
    private static Throwable lastFailure(Throwable failure) {
        if (!(failure instanceof TransportException gaveUp)) {
            return failure;
        }
        Throwable last = gaveUp.getCause();
        if (last instanceof CompletionException wrapped) { // how sendAsync's futures fail
            last = wrapped.getCause();
        }
        if (!(last instanceof IOException)) {
            return failure;
        }
        last.addSuppressed(gaveUp);
        return last;
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return client.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return client.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return client.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return client.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return client.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return client.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return client.authenticator();
    }

    @Override
    public Version version() {
        return client.version();
    }

    @Override
    public Optional<Executor> executor() {
        return client.executor();
    }

    @Override
    public String toString() {
        return "GatedHttpClient[" + client + ", gate " + gate + (backoff == null ? "" : ", with a back-off") + "]";
    }
}

package org.respite;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Composes a gate, retries and a fallback around one piece of work, in the
 * shape of resilience4j's {@code Decorators}; the order is fixed, the only one
 * that makes sense: the fallback outside the retries, the gate asked before
 * every attempt (B12).
 *
 * <pre>{@code
 * Supplier<String> body = Decorators.ofCheckedSupplier(() -> http.send(request, ofString()).body())
 *         .withGate(gate).withRetry(backoff)
 *         .withFallback(TemporarilyUnavailableException.class, refused -> cached)
 *         .decorateUnchecked();
 * }</pre>
 */
public final class Decorators {
    private static final Object NONE = new Object();

    private Decorators() {}

    public static <T, E extends Exception> Decoration<T, E> ofCheckedSupplier(CheckedSupplier<T, E> work) {
        return new Decoration<>(Objects.requireNonNull(work, "work"));
    }

    public static <T> Decoration<T, RuntimeException> ofSupplier(Supplier<T> work) {
        return new Decoration<>(work::get);
    }

    public static <T> Decoration<T, Exception> ofCallable(Callable<T> work) {
        return new Decoration<>(work::call);
    }

    public static Decoration<Void, RuntimeException> ofRunnable(Runnable work) {
        return new Decoration<>(() -> {
            work.run();
            return null;
        });
    }

    public static <T> AsyncDecoration<T> ofCompletionStage(Supplier<? extends CompletionStage<T>> work) {
        return new AsyncDecoration<>(Objects.requireNonNull(work, "work"));
    }

    /** What both decorations share: the gate, the back-off and the fallback. */
    abstract static class Parts<T, D extends Parts<T, D>> {
        Gate gate;
        Backoff backoff;
        Function<Throwable, ? extends T> fallback;
        Class<? extends Throwable> fallbackType;

        @SuppressWarnings("unchecked")
        private D self() {
            return (D) this;
        }

        /** Every attempt through this gate; its classifier decides what counts. */
        public D withGate(Gate value) {
            this.gate = value;
            return self();
        }

        /** Retries by this back-off (its classifier, else the gate's). */
        public D withRetry(Backoff value) {
            this.backoff = value;
            return self();
        }

        /** The result when the call fails with any exception (a refusal, the give-up error, the caller's own). */
        public D withFallback(Function<? super Throwable, ? extends T> value) {
            return withFallback(Exception.class, value);
        }

        /** The result when the call fails with an exception of {@code type}; others propagate. */
        public <X extends Throwable> D withFallback(Class<X> type, Function<? super X, ? extends T> value) {
            Objects.requireNonNull(value, "fallback");
            this.fallbackType = Objects.requireNonNull(type, "type");
            this.fallback = t -> value.apply(type.cast(t));
            return self();
        }

        /** The fallback as set now (later changes to this builder do not reach it): a value, or NONE when it does not apply. */
        Function<Throwable, Object> fallbackNow() {
            Class<? extends Throwable> type = fallbackType;
            Function<Throwable, ? extends T> value = fallback;
            return value == null ? null : failure -> type.isInstance(failure) ? value.apply(failure) : NONE;
        }
    }

    /** Synchronous work: {@link #decorate()} or {@link #get()}. */
    public static final class Decoration<T, E extends Exception> extends Parts<T, Decoration<T, E>> {
        private final CheckedSupplier<T, E> work;

        Decoration(CheckedSupplier<T, E> work) {
            this.work = work;
        }

        /** The composed work, run anew at every call. */
        public CheckedSupplier<T, E> decorate() {
            Gate g = gate;
            Backoff b = backoff;
            CheckedSupplier<T, E> protectedWork = b != null ? () -> b.call(g, work)
                    : g != null ? () -> g.call(work) : work;
            Function<Throwable, Object> fallBack = fallbackNow();
            return fallBack == null ? protectedWork : () -> {
                try {
                    return protectedWork.get();
                } catch (Exception e) {
                    Object value = fallBack.apply(e);
                    if (value == NONE) {
                        throw e;
                    }
                    @SuppressWarnings("unchecked")
                    T result = (T) value;
                    return result;
                }
            };
        }

        /** The composed work as a {@code Supplier}; a checked exception arrives wrapped in {@link CompletionException}. */
        public Supplier<T> decorateUnchecked() {
            CheckedSupplier<T, E> decorated = decorate();
            return () -> {
                try {
                    return decorated.get();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            };
        }

        /** Runs the composed work once. */
        public T get() throws E {
            return decorate().get();
        }
    }

    /** Asynchronous work: {@link #decorate()} or {@link #get()}; nothing blocks a thread. */
    public static final class AsyncDecoration<T> extends Parts<T, AsyncDecoration<T>> {
        private final Supplier<? extends CompletionStage<T>> work;

        AsyncDecoration(Supplier<? extends CompletionStage<T>> work) {
            this.work = work;
        }

        /** The composed work, run anew at every call. */
        public Supplier<CompletionStage<T>> decorate() {
            Gate g = gate;
            Backoff b = backoff;
            Supplier<CompletableFuture<T>> protectedWork = b != null ? () -> b.callAsync(g, work)
                    : g != null ? () -> g.callAsync(work) : () -> work.get().toCompletableFuture();
            Function<Throwable, Object> fallBack = fallbackNow();
            return fallBack == null ? protectedWork::get : () -> protectedWork.get().exceptionallyCompose(e -> {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                Object value = fallBack.apply(cause);
                @SuppressWarnings("unchecked")
                T result = (T) value;
                return value == NONE ? CompletableFuture.failedFuture(e) : CompletableFuture.completedFuture(result);
            });
        }

        /** Runs the composed work once. */
        public CompletionStage<T> get() {
            return decorate().get();
        }
    }
}

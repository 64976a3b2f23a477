package org.respite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

import org.respite.internal.JavaNetHttp;

/**
 * Decides what a protected call's exception or result means for the service,
 * in the core's outcomes (spec section 1); the same rules for {@link Gate#call}
 * and {@link Backoff#call}. Immutable: each method returns a new classifier whose
 * rule is asked before the earlier ones.
 *
 * <p>{@link #DEFAULT}: an exception implementing {@link CarriesOutcome} has its
 * outcome; {@code IOException} (the JDK HTTP client's timeouts, refused and reset
 * connections, TLS), {@code UncheckedIOException}, {@code TimeoutException} and
 * respite's {@link TransportException} are {@code transport}; <b>any other
 * exception is the caller's own</b>: reported as {@code request_error} (not
 * counted unless the gate has count_all_failures), never retried, rethrown
 * unchanged. A returned {@code java.net.http.HttpResponse} or respite
 * {@link Response} is classified by its status (a 503 counts and is retried),
 * with its Retry-After as the hint;
 * any other result is a success. {@code CompletionException} and
 * {@code ExecutionException} are classified by their cause.
 *
 * <p>The one-line override, as resilience4j's recordExceptions/ignoreExceptions:
 * {@code Classifier.DEFAULT.count(SQLTransientException.class).ignore(MyTimeout.class)},
 * or {@link #countEveryException()} for the rule of pybreaker and opossum.
 */
public final class Classifier {
    /** The default described above. */
    public static final Classifier DEFAULT = new Classifier(List.of(), List.of());

    /* Result types the default rules leave alone (no Response, no HttpResponse): found once per
     * class, since a failed instanceof of an interface scans the class's supertypes every call. */
    private static final ClassValue<Boolean> PLAIN = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return !Response.class.isAssignableFrom(type) && !JavaNetHttp.isResponse(type);
        }
    };

    private final List<Function<Throwable, Verdict>> exceptionRules; // newest first; null: not decided
    private Class<?> lastPlain; // the last result type found in PLAIN: one compare instead of a look-up (a race only re-asks)
    private final List<Function<Object, Verdict>> resultRules;

    private Classifier(List<Function<Throwable, Verdict>> exceptionRules, List<Function<Object, Verdict>> resultRules) {
        this.exceptionRules = exceptionRules;
        this.resultRules = resultRules;
    }

    /** Exceptions of these types (and subtypes) count as {@code transport} failures and are retried. */
    @SafeVarargs
    public final Classifier count(Class<? extends Throwable>... types) {
        return onException(t -> isAny(t, types) ? Verdict.TRANSPORT : null);
    }

    /** Exceptions of these types are the caller's own: not counted, not retried, rethrown. */
    @SafeVarargs
    public final Classifier ignore(Class<? extends Throwable>... types) {
        return onException(t -> isAny(t, types) ? Verdict.CALLERS_OWN : null);
    }

    /** Exceptions the predicate accepts count as {@code transport} failures. */
    public Classifier countWhen(Predicate<? super Throwable> predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return onException(t -> predicate.test(t) ? Verdict.TRANSPORT : null);
    }

    /**
     * Exceptions of {@code type} have the outcome {@code outcome} gives (e.g.
     * {@code SERVER_ERROR} for a driver's "server busy"); null: the caller's own.
     */
    public <X extends Throwable> Classifier outcome(Class<X> type, Function<? super X, Outcome> outcome) {
        Objects.requireNonNull(outcome, "outcome");
        return onException(t -> type.isInstance(t) ? Verdict.of(outcome.apply(type.cast(t))) : null);
    }

    /** Every exception counts as {@code transport} (unless a later rule says otherwise). */
    public Classifier countEveryException() {
        return onException(t -> Verdict.TRANSPORT);
    }

    /**
     * Results of {@code type} are classified by the HTTP status {@code status} reads
     * (the core's rules: 5xx server_error, 429 throttled, 4xx request_error); retry_on
     * sees the status too.
     */
    public <R> Classifier resultStatus(Class<R> type, ToIntFunction<? super R> status) {
        Objects.requireNonNull(status, "status");
        return onResult(r -> type.isInstance(r) ? Verdict.ofStatus(status.applyAsInt(type.cast(r)), 0) : null);
    }

    /** Results of {@code type} have the outcome {@code outcome} gives (null: success). */
    public <R> Classifier resultOutcome(Class<R> type, Function<? super R, Outcome> outcome) {
        Objects.requireNonNull(outcome, "outcome");
        return onResult(r -> {
            if (!type.isInstance(r)) {
                return null;
            }
            Outcome o = outcome.apply(type.cast(r));
            return o == null ? Verdict.SUCCESS : Verdict.of(o);
        });
    }

    private Classifier onException(Function<Throwable, Verdict> rule) {
        List<Function<Throwable, Verdict>> rules = new ArrayList<>(exceptionRules.size() + 1);
        rules.add(rule);
        rules.addAll(exceptionRules);
        return new Classifier(List.copyOf(rules), resultRules);
    }

    private Classifier onResult(Function<Object, Verdict> rule) {
        List<Function<Object, Verdict>> rules = new ArrayList<>(resultRules.size() + 1);
        rules.add(rule);
        rules.addAll(resultRules);
        return new Classifier(exceptionRules, List.copyOf(rules));
    }

    /** What a thrown exception means: the first rule that decides, else the default. */
    Verdict ofException(Throwable thrown) {
        Throwable t = thrown;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        for (Function<Throwable, Verdict> rule : exceptionRules) {
            Verdict v = rule.apply(t);
            if (v != null) {
                return v;
            }
        }
        if (t instanceof CarriesOutcome carrier) {
            int status = t instanceof OutcomeException withStatus ? withStatus.httpStatus() : 0;
            return new Verdict(carrier.outcome(), status, carrier.retryAfterHint(), false);
        }
        if (t instanceof IOException || t instanceof UncheckedIOException || t instanceof TimeoutException
                || t instanceof TransportException) {
            return Verdict.TRANSPORT;
        }
        return Verdict.CALLERS_OWN;
    }

    /** What a returned value means: the first rule that decides, else the default. */
    Verdict ofResult(Object result) {
        for (int i = 0; i < resultRules.size(); i++) { // no iterator: gate.call's closed path
            Verdict v = resultRules.get(i).apply(result);
            if (v != null) {
                return v;
            }
        }
        if (result == null || result.getClass() == lastPlain) {
            return Verdict.SUCCESS;
        }
        if (PLAIN.get(result.getClass())) {
            lastPlain = result.getClass();
            return Verdict.SUCCESS;
        }
        if (result instanceof Response response) {
            return new Verdict(response.outcome(), response.status(), response.retryAfter(), false);
        }
        int status = JavaNetHttp.statusOf(result);
        return status < 0 ? Verdict.SUCCESS : Verdict.ofStatus(status, JavaNetHttp.retryAfterOf(result));
    }

    private static boolean isAny(Throwable t, Class<? extends Throwable>[] types) {
        for (Class<? extends Throwable> type : types) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}

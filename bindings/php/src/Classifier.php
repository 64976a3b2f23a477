<?php
declare(strict_types=1);

namespace Respite;

/**
 * What a protected call's Throwable or returned value means for the service, in the core's
 * outcomes (spec section 1): one set of rules for Gate::call, Backoff::run, Decorators and the
 * HTTP integrations (Respite\Http). Immutable: each rule method returns a new classifier whose
 * rule is asked before the earlier ones; a rule answering null leaves the call to the next
 * rule, and the last to the default.
 *
 * The default (as in every respite binding): a Throwable counts only when the binding can tell
 * it is the transport's or the service's (isServiceFailure()); any other is the caller's own:
 * the gate is told `request_error` (not counted), it is never retried, and it is rethrown
 * unchanged. A returned Respite\Response has its outcome; a returned PSR-7 response is
 * classified by its status (5xx and 429 count, other 4xx do not) with its Retry-After; any
 * other value is a success.
 *
 *   Classifier::default()->count(\PDOException::class)->ignore(CartEmpty::class)
 *   Classifier::default()->countEveryThrowable()          // ganesha's and pybreaker's rule
 */
final class Classifier
{
    /** @var list<\Closure(\Throwable): (Outcome|string|bool|null)> newest first */
    private array $throwableRules = [];
    /** @var list<\Closure(mixed): (Outcome|string|int|bool|null)> newest first */
    private array $resultRules = [];

    private function __construct()
    {
    }

    /** The default described above. */
    public static function default(): self
    {
        static $default = null;
        return $default ??= new self();
    }

    /**
     * Throwables of these classes or interfaces count: with the outcome or HTTP status they
     * carry (Outcome::ofThrowable), else as `transport`; retried.
     * @param class-string<\Throwable> ...$types
     */
    public function count(string ...$types): self
    {
        self::checkTypes('Classifier::count', $types);
        return $this->onThrowable(static fn (\Throwable $e): ?bool => self::isAny($e, $types) ? true : null);
    }

    /**
     * Throwables of these classes or interfaces are the caller's own: not counted, not retried, rethrown.
     * @param class-string<\Throwable> ...$types
     */
    public function ignore(string ...$types): self
    {
        self::checkTypes('Classifier::ignore', $types);
        return $this->onThrowable(static fn (\Throwable $e): ?bool => self::isAny($e, $types) ? false : null);
    }

    /** Every Throwable counts (unless a later rule says otherwise). */
    public function countEveryThrowable(): self
    {
        return $this->onThrowable(static fn (\Throwable $e): bool => true);
    }

    /**
     * $rule($throwable) answers: true (counts, as count()), false (the caller's own), an Outcome
     * or its name (that outcome), or null (the next rule decides).
     * @param callable(\Throwable): (Outcome|string|bool|null) $rule
     */
    public function onThrowable(callable $rule): self
    {
        $copy = clone $this;
        array_unshift($copy->throwableRules, \Closure::fromCallable($rule));
        return $copy;
    }

    /**
     * $rule($value) answers for a returned value: an HTTP status (classified by the core), an
     * Outcome or its name, true (counts, as `unusable`), false (success) or null (the next rule decides).
     * @param callable(mixed): (Outcome|string|int|bool|null) $rule
     */
    public function onResult(callable $rule): self
    {
        $copy = clone $this;
        array_unshift($copy->resultRules, \Closure::fromCallable($rule));
        return $copy;
    }

    /**
     * The default rule for a Throwable: respite's TransportException, a PSR-18
     * NetworkExceptionInterface, a Guzzle RequestException without a response (the transfer
     * did not complete), and any exception carrying an outcome (getOutcome()) or an HTTP
     * status (getStatusCode() on itself or on getResponse(), as Guzzle's errors do).
     */
    public static function isServiceFailure(\Throwable $e): bool
    {
        if ($e instanceof TransportException || $e instanceof \Psr\Http\Client\NetworkExceptionInterface
            || ($e instanceof \GuzzleHttp\Exception\RequestException && !$e->hasResponse())) {
            return true;
        }
        [, $status] = Outcome::ofThrowable($e);
        if ($status !== 0) {
            return true;
        }
        $outcome = method_exists($e, 'getOutcome') ? $e->getOutcome() : null;
        return $outcome instanceof Outcome || (is_string($outcome) && Outcome::tryFrom($outcome) !== null);
    }

    /**
     * What a thrown Throwable means: [outcome, HTTP status or 0, retry-after hint or 0], or
     * null when it is the caller's own.
     * @return array{0: Outcome, 1: int, 2: float}|null
     */
    public function throwable(\Throwable $e): ?array
    {
        $verdict = null;
        foreach ($this->throwableRules as $rule) {
            if (($verdict = $rule($e)) !== null) {
                break;
            }
        }
        $verdict ??= self::isServiceFailure($e);
        if ($verdict === false) {
            return null;
        }
        $carried = Outcome::ofThrowable($e);
        return $verdict === true ? $carried : [Outcome::of($verdict), $carried[1], $carried[2]];
    }

    /**
     * What a returned value means: [outcome, HTTP status or 0, retry-after hint or 0].
     * @return array{0: Outcome, 1: int, 2: float}
     */
    public function result(mixed $value): array
    {
        foreach ($this->resultRules as $rule) {
            $verdict = $rule($value);
            if ($verdict !== null) {
                return match (true) {
                    $verdict === true => [Outcome::Unusable, 0, 0.0],
                    $verdict === false => [Outcome::Success, 0, 0.0],
                    is_int($verdict) => [Outcome::classify($verdict), $verdict, 0.0],
                    default => [Outcome::of($verdict), 0, 0.0],
                };
            }
        }
        if ($value instanceof Response) {
            return [$value->outcome(), $value->status, $value->retryAfter];
        }
        if ($value instanceof \Psr\Http\Message\ResponseInterface) {
            $status = $value->getStatusCode();
            return [Outcome::classify($status), $status, Outcome::retryAfterOf($value, $status)];
        }
        return [Outcome::Success, 0, 0.0];
    }

    /**
     * @internal one attempt that threw $thrown or returned $result:
     * [outcome to report, HTTP status or 0, hint or 0, whether $thrown is the caller's own]
     * @return array{0: Outcome, 1: int, 2: float, 3: bool}
     */
    public function settle(?\Throwable $thrown, mixed $result): array
    {
        if ($thrown === null) {
            return [...$this->result($result), false];
        }
        $failure = $this->throwable($thrown);
        return $failure === null ? [Outcome::RequestError, 0, 0.0, true] : [...$failure, false];
    }

    /** @internal whether a returned value can be anything but a success (the gate's lean path skips the rest) */
    public function judges(mixed $result): bool
    {
        return $this->resultRules !== [] || is_object($result);
    }

    /** @internal @param list<string> $types names of Throwable classes or interfaces, else a TypeError for $method */
    public static function checkTypes(string $method, array $types): void
    {
        foreach ($types as $type) {
            if (!is_a($type, \Throwable::class, true)) {
                throw new \TypeError("$method() takes names of Throwable classes or interfaces (got "
                    . var_export($type, true) . ')');
            }
        }
    }

    /** @internal @param list<string> $types */
    public static function isAny(\Throwable $e, array $types): bool
    {
        foreach ($types as $type) {
            if ($e instanceof $type) {
                return true;
            }
        }
        return false;
    }
}

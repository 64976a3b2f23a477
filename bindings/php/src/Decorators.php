<?php
declare(strict_types=1);

namespace Respite;

/**
 * Composes a gate, retries and a fallback around one function, in the shape of resilience4j's
 * Decorators (and ganesha's middleware): the order is fixed, the one that makes sense: the
 * fallback outside the retries, the gate asked before every attempt (B12). Immutable: each
 * with*() returns a new builder.
 *
 *   $fetch = Decorators::of(fn (string $id) => $http->sendRequest($factory->createRequest('GET', "/items/$id")))
 *       ->withGate($gate)
 *       ->withRetry(new Backoff(['max_attempts' => 3]))
 *       ->withFallback(fn (TemporarilyUnavailableException $e) => $cached, TemporarilyUnavailableException::class)
 *       ->decorate();
 *   $response = $fetch('42');
 *
 * @template T
 */
final class Decorators
{
    private ?Gate $gate = null;
    private ?Backoff $backoff = null;
    /** @var (callable(float): mixed)|null */
    private $sleep = null;
    private ?Classifier $classifier = null;
    private bool $hasFallback = false;
    private mixed $fallback = null;
    /** @var list<class-string<\Throwable>> */
    private array $fallbackOn = [];

    /** @param \Closure(mixed ...): T $fn */
    private function __construct(private readonly \Closure $fn)
    {
    }

    /**
     * @template R
     * @param callable(mixed ...): R $fn the work; the decorated function passes its arguments on
     * @return self<R>
     */
    public static function of(callable $fn): self
    {
        return new self(\Closure::fromCallable($fn));
    }

    /** @return self<T> every attempt through this gate */
    public function withGate(Gate $gate): self
    {
        $copy = clone $this;
        $copy->gate = $gate;
        return $copy;
    }

    /**
     * @param (callable(float): mixed)|null $sleep waits between attempts (null: usleep)
     * @return self<T> failures retried by this back-off's schedule (Backoff::run)
     */
    public function withRetry(Backoff $backoff, ?callable $sleep = null): self
    {
        $copy = clone $this;
        [$copy->backoff, $copy->sleep] = [$backoff, $sleep];
        return $copy;
    }

    /** @return self<T> what counts and is retried (default: the gate's classifier, else Classifier::default()) */
    public function withClassifier(Classifier $classifier): self
    {
        $copy = clone $this;
        $copy->classifier = $classifier;
        return $copy;
    }

    /**
     * The result when the call ends with a Throwable of one of $on (default \Exception: a refusal,
     * the retries' give-up, the caller's own; not PHP's \Error). $fallback: the value, or a
     * \Closure given the Throwable.
     * @param T|(\Closure(\Throwable): T) $fallback
     * @param class-string<\Throwable> ...$on
     * @return self<T>
     */
    public function withFallback(mixed $fallback, string ...$on): self
    {
        Classifier::checkTypes('Decorators::withFallback', $on);
        $copy = clone $this;
        [$copy->hasFallback, $copy->fallback, $copy->fallbackOn] = [true, $fallback, $on === [] ? [\Exception::class] : $on];
        return $copy;
    }

    /**
     * The composed function, as configured now; run anew at every call.
     * @return \Closure(mixed ...): T
     */
    public function decorate(): \Closure
    {
        [$fn, $gate, $backoff, $sleep, $rules] = [$this->fn, $this->gate, $this->backoff, $this->sleep, $this->classifier];
        $protected = match (true) {
            $backoff !== null => static fn (mixed ...$args): mixed
                => $backoff->run(static fn (): mixed => $fn(...$args), $gate, $sleep, classifier: $rules),
            $gate !== null => static fn (mixed ...$args): mixed => $gate->call(static fn (): mixed => $fn(...$args), $rules),
            default => $fn,
        };
        if (!$this->hasFallback) {
            return $protected;
        }
        [$fallback, $on] = [$this->fallback, $this->fallbackOn];
        return static function (mixed ...$args) use ($protected, $fallback, $on): mixed {
            try {
                return $protected(...$args);
            } catch (\Throwable $e) {
                if (!Classifier::isAny($e, $on)) {
                    throw $e;
                }
                return $fallback instanceof \Closure ? $fallback($e) : $fallback;
            }
        };
    }

    /**
     * Runs the composed function once with these arguments.
     * @return T
     */
    public function call(mixed ...$args): mixed
    {
        return $this->decorate()(...$args);
    }
}

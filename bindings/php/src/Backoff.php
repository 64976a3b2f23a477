<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;

/**
 * A schedule of delays between attempts of one call (spec section 3).
 * Immutable: each retried call takes its own sequence with start().
 */
final class Backoff
{
    use Handle;

    private const KIND = RESPITE_HANDLE_BACKOFF;

    /** @var array<string, mixed> */
    private array $settings;

    /** @param array<string, mixed> $settings back-off settings by name */
    public function __construct(array $settings = [])
    {
        $this->ptr = Settings::with('backoff', $settings, function ($raw) {
            $this->settings = Settings::read($raw, 'backoff');
            return respite_backoff_new($raw);
        });
    }

    /** Frees this back-off's reference (a client that uses it keeps its own). Idempotent. */
    public function close(): void
    {
        $this->free('respite_backoff_free');
    }

    /** @return array<string, mixed> */
    public function settings(): array
    {
        return $this->settings;
    }

    public function maxAttempts(): int
    {
        return respite_backoff_max_attempts($this->raw());
    }

    /** A new sequence number for one retried call. */
    public function start(): int
    {
        return respite_backoff_start($this->ptr);
    }

    /** Seconds before retry $retry (1 = the first retry) of $sequence. */
    public function delay(int $retry, int $sequence = 0, ?float $retryAfter = null): float
    {
        return respite_backoff_delay($this->ptr, $sequence, $retry, $retryAfter ?? 0.0);
    }

    /** @return list<float> every delay of a full schedule (max_attempts - 1 of them) */
    public function delays(int $sequence = 0): array
    {
        $out = [];
        for ($k = 1, $n = $this->maxAttempts(); $k < $n; $k++) {
            $out[] = $this->delay($k, $sequence);
        }
        return $out;
    }

    /** Whether retry_on lists this outcome or HTTP status (0: none). */
    public function retriesOn(Outcome|string|int $outcome, int $httpStatus = 0): bool
    {
        $code = Outcome::of($outcome)->code();
        return respite_backoff_retries_on($this->ptr, $code, $httpStatus) === 1;
    }

    /** After attempt $attempt (1: the first) of $sequence ended with $outcome: the next delay, or null to stop. */
    public function next(
        int $sequence,
        int $attempt,
        Outcome|string|int $outcome,
        int $httpStatus = 0,
        ?float $retryAfter = null,
    ): ?float {
        $code = Outcome::of($outcome)->code();
        $delay = respite_backoff_next($this->ptr, $sequence, $attempt, $code, $httpStatus, $retryAfter ?? 0.0);
        return $delay < 0 ? null : $delay;
    }

    /**
     * Calls $fn() until it succeeds or the core's schedule gives up (B12-B19; see docs/php.md),
     * asking $gate before every attempt. Each attempt is judged by $classifier (else the gate's,
     * else Classifier::default()); $statusOf($result), when given, is asked first (its Classifier::
     * onResult() rule). The caller's own Throwable is rethrown at once, never retried. Gave up
     * (max_attempts, retry_on, max_elapsed_seconds): TransportException (B20) with the last Throwable
     * as getPrevious(), or the last failed answer (a 503 response) as getResult(). $beforeSleep(RetryEvent) is called before each
     * wait (what it throws ends the call); $sleep(float $seconds) waits (0 under
     * Testing::setImmediateRetries); $report gets ['attempts' => made, 'last_outcome' => Outcome|null].
     * @template T
     * @param callable(): T $fn
     * @param (callable(RetryEvent): mixed)|null $beforeSleep
     * @return T
     */
    public function run(
        callable $fn,
        ?Gate $gate = null,
        ?callable $sleep = null,
        ?callable $statusOf = null,
        ?array &$report = null,
        ?Classifier $classifier = null,
        ?callable $beforeSleep = null,
    ): mixed {
        $rules = $classifier ?? $gate?->classifier() ?? Classifier::default();
        $rules = $statusOf === null ? $rules : $rules->onResult($statusOf);
        $sleep ??= static fn (float $seconds) => usleep((int) round($seconds * 1e6));
        $report = ['attempts' => 0, 'last_outcome' => null];
        $call = $this->begin();
        for ($attempt = 1;; $attempt++) {
            $permit = $gate?->acquire() ?? 0;
            $report['attempts'] = $attempt;
            $result = $thrown = null;
            try {
                $result = $fn();
            } catch (\Throwable $thrown) {
            }
            [$outcome, $status, $hint, $own] = $rules->settle($thrown, $result);
            $report['last_outcome'] = $outcome;
            $gate?->reportCode($outcome->code(), $permit, $hint, null);
            if ($own) {
                throw $thrown;
            }
            if ($outcome === Outcome::Success) {
                return $result;
            }
            try {
                $delay = respite_retry_decide($this->ptr, $call, $attempt, $outcome->code(), $status, $hint);
            } catch (TransportException $gaveUp) {
                throw (new TransportException($gaveUp->getMessage(), null, $thrown))->withResult($result);
            }
            if ($beforeSleep !== null) {
                $beforeSleep(new RetryEvent($attempt, $delay, $outcome, $status, $thrown, $thrown === null ? $result : null));
            }
            $sleep($call->wait);
        }
    }

    /**
     * @internal one retried call's state in the core (respite_retry_begin): pass it to
     * respite_retry_decide after each failed attempt and wait its `wait` (0 under the testing switch).
     */
    public function begin(): \respite_retry_call
    {
        $call = new \respite_retry_call();
        respite_retry_begin($this->ptr, $call);
        return $call;
    }

    /**
     * For your own retry loops: the core's TransportException when this schedule stops after
     * $attempts, the last ending with $outcome (B14), $last as getPrevious().
     */
    public function gaveUp(
        int $attempts,
        Outcome|string|int $outcome,
        int $httpStatus = 0,
        ?\Throwable $last = null,
    ): RespiteException {
        try {
            respite_retry_gave_up($this->ptr, $attempts, Outcome::of($outcome)->code(), $httpStatus);
        } catch (TransportException $e) {
            return new TransportException($e->getMessage(), null, $last);
        } catch (RespiteException $e) {
            return $e;
        }
        return new InternalException('respite_retry_gave_up did not fail');
    }
}

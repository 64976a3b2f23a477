<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Errors;
use Respite\Internal\Lender;
use Respite\Internal\WithSettings;

/**
 * A schedule of delays between attempts of one call (spec section 3).
 *
 *   $backoff = new Backoff(['max_attempts' => 5, 'initial_delay_seconds' => 0.2, 'jitter' => 'full']);
 *   $answer = $backoff->run(fn () => $client->send($request), $gate);
 *
 * Immutable: each retried call takes its own sequence with start().
 */
final class Backoff
{
    use Lender;

    /** @var array<string, mixed> */
    private array $settings;

    /** @param array<string, mixed> $settings back-off settings by name */
    public function __construct(array $settings = [])
    {
        $this->ptr = WithSettings::make('backoff', $settings, function ($raw) {
            $this->settings = Settings::read($raw, 'backoff');
            return respite_backoff_new($raw);
        });
    }

    /**
     * Frees the back-off (and closes clients that borrow it); using it
     * afterwards throws ClosedException. Idempotent.
     */
    public function close(): void
    {
        $this->release('respite_backoff_free');
    }

    /** @internal a client borrows this back-off: closing it closes the client first */
    public function lend(Client $client): void
    {
        $this->addBorrower($client);
    }

    /** @return array<string, mixed> */
    public function settings(): array
    {
        return $this->settings;
    }

    public function maxAttempts(): int
    {
        if ($this->ptr === null) {
            $this->start(); // throws ClosedException worded by the core
        }
        return respite_backoff_max_attempts($this->ptr);
    }

    /** A new sequence number for one retried call. */
    public function start(): int
    {
        try {
            return respite_backoff_start($this->ptr);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    /** Seconds before retry $retry (1 = the first retry) of $sequence. */
    public function delay(int $retry, int $sequence = 0, ?float $retryAfter = null): float
    {
        try {
            return respite_backoff_delay($this->ptr, $sequence, $retry, $retryAfter ?? 0.0);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
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
        try {
            return respite_backoff_retries_on($this->ptr, $code, $httpStatus) === 1;
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    /**
     * After attempt $attempt (1 = the first) of $sequence ended with
     * $outcome: the delay before the next attempt, or null to stop.
     */
    public function next(
        int $sequence,
        int $attempt,
        Outcome|string|int $outcome,
        int $httpStatus = 0,
        ?float $retryAfter = null,
    ): ?float {
        $code = Outcome::of($outcome)->code();
        try {
            $delay = respite_backoff_next($this->ptr, $sequence, $attempt, $code, $httpStatus, $retryAfter ?? 0.0);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        return $delay < 0 ? null : $delay;
    }

    /**
     * Calls $fn() until it succeeds or the schedule ends (B12-B14), as the
     * core's respite_retry_run does.
     *
     * Before every attempt $gate (when given) is asked: a refusal throws
     * TemporarilyUnavailableException and no attempt is made. A Throwable
     * from $fn is a failure of its kind (Outcome::ofThrowable); when the
     * schedule ends on one, TransportException is thrown with the core's
     * message, the Throwable as getPrevious(). $statusOf($result) may give
     * an HTTP status for a returned answer (a 503 is then retried); when the
     * schedule ends on such an answer, the answer is returned.
     * $sleep(float $seconds) waits between attempts (default: usleep).
     * $report receives ['attempts' => made, 'last_outcome' => Outcome|null].
     */
    public function run(
        callable $fn,
        ?Gate $gate = null,
        ?callable $sleep = null,
        ?callable $statusOf = null,
        ?array &$report = null,
    ): mixed {
        $sleep ??= static function (float $seconds): void {
            usleep((int) round($seconds * 1e6));
        };
        $report = ['attempts' => 0, 'last_outcome' => null];
        $sequence = $this->start();
        for ($attempt = 1;; $attempt++) {
            $permit = $gate?->acquire() ?? 0;
            $report['attempts'] = $attempt;
            try {
                $result = $fn();
            } catch (\Throwable $e) {
                [$outcome, $status, $hint] = Outcome::ofThrowable($e);
                $report['last_outcome'] = $outcome;
                $gate?->reportCode($outcome->code(), $permit, $hint, null);
                $delay = $this->next($sequence, $attempt, $outcome, $status, $hint);
                if ($delay === null) {
                    throw $this->gaveUp($attempt, $outcome, $status, $e);
                }
                $sleep($delay);
                continue;
            }
            $status = $statusOf !== null ? $statusOf($result) : null;
            $outcome = $status === null ? Outcome::Success : Outcome::classify($status);
            $report['last_outcome'] = $outcome;
            $gate?->reportCode($outcome->code(), $permit, null, null);
            if ($outcome === Outcome::Success) {
                return $result;
            }
            $delay = $this->next($sequence, $attempt, $outcome, $status ?? 0);
            if ($delay === null) {
                return $result; // the schedule ended: the caller sees the last answer
            }
            $sleep($delay);
        }
    }

    /**
     * The error a retry loop ends with when this schedule stops it after
     * $attempts attempts, the last ending with $outcome (B14), worded by
     * the core: TransportException ("the call failed after 3 attempts:
     * last outcome server_error (status 503)"), or the core's error for
     * bad input. For your own retry loops.
     */
    public function gaveUp(
        int $attempts,
        Outcome|string|int $outcome,
        int $httpStatus = 0,
        ?\Throwable $last = null,
    ): RespiteException {
        $outcome = Outcome::of($outcome);
        try {
            respite_retry_gave_up($this->ptr, $attempts, $outcome->code(), $httpStatus);
        } catch (\Exception $e) {
            $error = Errors::translate($e);
            if ($error instanceof TransportException) {
                return new TransportException($error->getMessage(), $last, $attempts, $outcome);
            }
            return $error;
        }
        return new InternalException('respite_retry_gave_up did not fail');
    }
}

<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Errors;
use Respite\Internal\Lender;
use Respite\Internal\Log;
use Respite\Internal\WithSettings;

/**
 * One recovery gate protecting one service (spec section 2).
 *
 *   $gate = new Gate(['failures_to_enter_recovery' => 5, 'recovery_seconds' => 30]);
 *   $gate = Gate::profile('usage_sharing', ['max_recovery_seconds' => 600]);
 *   $answer = $gate->call(fn () => $client->send($request));
 *
 * Settings use the spec's names. Methods take an optional $now (seconds on
 * a monotonic clock, for tests); by default the core's clock is read.
 * Events go to $logger (PSR-3-shaped object or callable; error_log when
 * null). close() frees the gate; using it afterwards throws ClosedException.
 */
final class Gate
{
    use Lender;

    /** True while a transition may be pending: poll events after calls. */
    private bool $watch = false;
    /** @var list<Event> seen, not yet taken by takeEvents() (at most 64) */
    private array $recent = [];
    /** @var array<string, mixed> */
    private array $settings;
    /** @var object|callable|null */
    private $logger;

    /**
     * @param array<string, mixed> $settings gate settings by name
     * @param string|null $profile "cloud_request" (the default) or "usage_sharing"
     * @param object|callable|null $logger where events go (PSR-3 shape, callable, or null: error_log)
     * @param string|null $name shown in log lines
     */
    public function __construct(
        array $settings = [],
        ?string $profile = null,
        $logger = null,
        public readonly ?string $name = null,
    ) {
        Log::check($logger);
        $this->logger = $logger;
        $this->ptr = WithSettings::make($profile ?? 'gate', $settings, function ($raw) {
            $this->settings = Settings::read($raw, 'gate');
            return respite_gate_new($raw);
        });
    }

    /** A gate with a profile's defaults ("cloud_request", "usage_sharing") and these settings. */
    public static function profile(string $profile, array $settings = [], $logger = null, ?string $name = null): self
    {
        return new self($settings, $profile, $logger, $name);
    }

    /** Frees the gate (and closes engines and clients that borrow it). Idempotent. */
    public function close(): void
    {
        if ($this->ptr === null) {
            return;
        }
        $this->closeBorrowers();
        try {
            $this->poll();
        } catch (\Throwable) {
            // a logger failing at close must not leak the gate
        }
        $this->release('respite_gate_free');
    }

    /** @return array<string, mixed> every gate setting's value, defaults and profile included */
    public function settings(): array
    {
        return $this->settings;
    }

    // ---------------------------------------------------------------- checking

    /**
     * Asks to make a call: returns the permit to report its outcome with,
     * or throws TemporarilyUnavailableException (with getRetryAfter()).
     */
    public function acquire(?float $now = null): int
    {
        $t = $now ?? respite_now();
        try {
            $permit = respite_gate_admit($this->ptr, $t);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        if ($permit <= 0) {
            throw $this->refusal($t);
        }
        if ($this->watch) {
            $this->poll();
        }
        return $permit;
    }

    /** Asks to make a call without throwing on a refusal. */
    public function check(?float $now = null): Decision
    {
        $out = new \respite_decision();
        try {
            respite_gate_check($this->ptr, $now ?? respite_now(), $out);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        if (!$out->allowed) {
            $this->watch = true;
        }
        if ($this->watch) {
            $this->poll();
        }
        return new Decision($out->allowed !== 0, $out->probe !== 0, $out->permit, $out->retry_after);
    }

    /** Seconds until a call may be admitted: 0 when one would be, INF under recover_never. */
    public function retryAfter(?float $now = null): float
    {
        try {
            return respite_gate_retry_after($this->ptr, $now ?? respite_now());
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    // --------------------------------------------------------------- reporting

    /**
     * Reports a call's outcome (an Outcome, its name or number) with the
     * permit it was admitted with (0: no permit, counted in the current
     * generation). $retryAfter: seconds from a Retry-After header.
     */
    public function report(
        Outcome|string|int $outcome = Outcome::Success,
        int $permit = 0,
        ?float $retryAfter = null,
        ?float $now = null,
    ): void {
        $this->reportCode(Outcome::of($outcome)->code(), $permit, $retryAfter, $now);
    }

    /** Reports an HTTP status, classified by the core; returns the outcome. */
    public function reportStatus(
        int $status,
        int $permit = 0,
        bool $bodyUsable = true,
        ?float $retryAfter = null,
        ?float $now = null,
    ): Outcome {
        $outcome = Outcome::classify($status, false, $bodyUsable);
        $this->reportCode($outcome->code(), $permit, $retryAfter, $now);
        return $outcome;
    }

    /** Reports the failure a Throwable of the user's code stands for (see Outcome::ofThrowable). */
    public function reportThrowable(\Throwable $e, int $permit = 0, ?float $now = null): Outcome
    {
        [$outcome, , $hint] = Outcome::ofThrowable($e);
        $this->reportCode($outcome->code(), $permit, $hint, $now);
        return $outcome;
    }

    /** G14: closed again, with the first pause, an empty window and a new generation. */
    public function reset(?float $now = null): void
    {
        try {
            respite_gate_reset($this->ptr, $now ?? respite_now());
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        $this->watch = true;
        $this->poll();
    }

    // --------------------------------------------------------- protected calls

    /**
     * Calls $fn(...$args) through the gate. Refused: throws
     * TemporarilyUnavailableException and $fn is not called. $fn returns:
     * success is reported and its value returned. $fn throws: the failure
     * its Throwable stands for is reported (transport unless it says
     * otherwise, see Outcome::ofThrowable) and the Throwable rethrown.
     */
    public function call(callable $fn, mixed ...$args): mixed
    {
        if ($args !== []) {
            $fn = static fn (): mixed => $fn(...$args);
        }
        // The lean path (swig/php.i): admit, $fn and the success report in C.
        try {
            $result = respite_php_gate_call($this->ptr, $fn);
            // $this->ptr again: $fn may have closed the gate
            respite_php_gate_call_done($this->ptr);
        } catch (\Throwable $e) {
            throw $this->callFailed($e);
        }
        if ($this->watch) {
            $this->poll();
        }
        return $result;
    }

    /** $fn wrapped so that every call goes through call(). */
    public function protect(callable $fn): \Closure
    {
        return fn (mixed ...$args): mixed => $this->call($fn, ...$args);
    }

    // ----------------------------------------------------------------- insight

    /** "closed", "open" or "probing" at $now. */
    public function state(?float $now = null): string
    {
        try {
            return (string) respite_gate_state_name(respite_gate_get_state($this->ptr, $now ?? respite_now()));
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    /**
     * Statistics since the gate was made (reset does not clear them).
     * @return array<string, int|float|string>
     */
    public function stats(): array
    {
        $s = new \respite_gate_stats();
        try {
            respite_gate_stats_get($this->ptr, $s);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        return self::statsArray($s);
    }

    /**
     * @internal the figures of a raw stats struct (also a sender's gate)
     * @return array<string, int|float|string>
     */
    public static function statsArray(\respite_gate_stats $s): array
    {
        return [
            'admitted' => $s->admitted, 'refused' => $s->refused, 'reported' => $s->reported,
            'counted_failures' => $s->counted_failures, 'late' => $s->late, 'trips' => $s->trips,
            'probes' => $s->probes, 'probe_timeouts' => $s->probe_timeouts,
            'events_dropped' => $s->events_dropped, 'generation' => $s->generation,
            'window_failures' => $s->window_failures, 'state' => (string) respite_gate_state_name($s->state),
            'delay' => $s->delay, 'until' => $s->until, 'probes_outstanding' => $s->probes_outstanding,
        ];
    }

    /**
     * The events (G18) seen since the last call, oldest first (at most the
     * last 64). They are logged as they are seen, too.
     * @return list<Event>
     */
    public function takeEvents(): array
    {
        if ($this->ptr === null) {
            $this->stats(); // throws ClosedException worded by the core
        }
        $this->poll();
        $out = $this->recent;
        $this->recent = [];
        return $out;
    }

    // --------------------------------------------------------------- internals

    /** @internal an engine or client borrows this gate: closing the gate closes it first */
    public function lend(Engine|Client $borrower): void
    {
        $this->addBorrower($borrower);
    }

    /** @internal */
    public function reportCode(int $code, int $permit, ?float $hint, ?float $now): void
    {
        try {
            respite_gate_report($this->ptr, $permit, $code, $hint ?? 0.0, $now ?? respite_now());
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        if ($code !== RESPITE_OUTCOME_SUCCESS) {
            $this->watch = true;
        }
        if ($this->watch) {
            $this->poll();
        }
    }

    /** The rare paths of call(): refused, closed, or $fn threw. */
    private function callFailed(\Throwable $e): \Throwable
    {
        $permit = respite_php_gate_call_permit();
        if ($permit > 0 && !($e instanceof \Exception && Errors::translate($e) instanceof ClosedException)) {
            // $fn threw: report the failure it stands for, rethrow it unchanged
            $this->reportThrowable($e, $permit);
            return $e;
        }
        $error = Errors::translate($e);
        if ($error instanceof TemporarilyUnavailableException) {
            $this->watch = true;
            $this->poll();
            return Errors::refusal(respite_php_gate_call_retry_after());
        }
        return $error;
    }

    private function refusal(float $t): TemporarilyUnavailableException
    {
        try {
            $retryAfter = respite_gate_retry_after($this->ptr, $t);
        } catch (\Exception $e) {
            $error = Errors::translate($e);
            return $error instanceof TemporarilyUnavailableException ? $error : Errors::refusal(NAN);
        }
        $this->watch = true;
        $this->poll();
        // A refusal is for a time > 0; a race with a transition may read 0,
        // which still means "try again now".
        return Errors::refusal($retryAfter >= 0 ? $retryAfter : NAN);
    }

    /** @internal the engine drives this gate: log what happened */
    public function pollEvents(): void
    {
        if ($this->ptr !== null) {
            $this->watch = true;
            $this->poll();
        }
    }

    private function poll(): void
    {
        if ($this->ptr === null) {
            return;
        }
        $raw = new \respite_event();
        $events = [];
        try {
            while (respite_gate_next_event($this->ptr, $raw) === 1) {
                $events[] = Event::fromRaw($raw);
            }
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        if ($events === []) {
            // nothing pending and closed: no transition until the next failure or refusal
            $stats = new \respite_gate_stats();
            respite_gate_stats_get($this->ptr, $stats);
            $this->watch = $stats->state !== RESPITE_GATE_CLOSED;
            return;
        }
        $this->recent = array_slice(array_merge($this->recent, $events), -64);
        $last = $events[count($events) - 1]->type;
        if ($last === 'recovered' || $last === 'reset') {
            $this->watch = false;
        }
        Log::events($this->logger, $this->name, $events);
    }
}

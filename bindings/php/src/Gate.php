<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;
use Respite\Internal\Events;

/**
 * One recovery gate protecting one service (spec section 2).
 *
 *   $gate = new Gate(['failures_to_enter_recovery' => 5, 'recovery_seconds' => 30, 'name' => 'billing']);
 *   $answer = $gate->call(fn () => $client->sendRequest($request));
 *
 * What counts as the service's failure in call(), protect() and the retry helper: the gate's
 * Classifier (Classifier::default() unless given).
 *
 * Methods take an optional $now (seconds on a monotonic clock, for tests);
 * by default the core's clock is read.
 */
final class Gate
{
    use Handle;
    use Events;

    private const NEXT_EVENT = 'respite_gate_next_event';
    private const CLOSED_CHECK = 'respite_gate_admit_now';

    /** @var array<string, mixed> */
    private array $settings;
    private Classifier $classifier;
    /** whether the classifier has result rules (call()'s lean path skips them for scalars otherwise) */
    private bool $judgesScalars;

    /**
     * @param array<string, mixed> $settings gate settings by name ('name' is shown in log lines)
     * @param string|null $profile "cloud_request" (the default) or "usage_sharing"
     * @param object|callable|null $logger where events go (PSR-3 shape, callable, or null: error_log)
     * @param string|null $name the `name` setting, when not in $settings
     * @param Classifier|null $classifier what counts in call() and retries (null: Classifier::default())
     */
    public function __construct(
        array $settings = [],
        ?string $profile = null,
        $logger = null,
        ?string $name = null,
        ?Classifier $classifier = null,
    ) {
        $this->logTo($logger);
        $this->classifier = $classifier ?? Classifier::default();
        $this->judgesScalars = $this->classifier->judges(null);
        $named = $name === null ? $settings : $settings + ['name' => $name];
        $this->ptr = Settings::with($profile ?? 'gate', $named, function ($raw) {
            $gate = respite_gate_new($raw); // first: the core refuses another component's settings
            $this->settings = Settings::read($raw, 'gate');
            return $gate;
        });
    }

    /** A gate with a profile's defaults ("cloud_request", "usage_sharing") and these settings. */
    public static function profile(
        string $profile,
        array $settings = [],
        $logger = null,
        ?string $name = null,
        ?Classifier $classifier = null,
    ): self {
        return new self($settings, $profile, $logger, $name, $classifier);
    }

    /** Frees this gate's reference (engines and clients that use it keep theirs). Idempotent. */
    public function close(): void
    {
        try {
            $this->pollEvents();
        } finally {
            $this->free('respite_gate_free');
        }
    }

    /** The `name` setting ("" when unset), as in the log lines. */
    public function name(): string
    {
        return (string) respite_gate_name($this->raw());
    }

    /** What counts as the service's failure in call(), protect() and retries through this gate. */
    public function classifier(): Classifier
    {
        return $this->classifier;
    }

    /** @return array<string, mixed> every gate setting's value, defaults and profile included */
    public function settings(): array
    {
        return $this->settings;
    }

    /** Asks to make a call: the permit to report with, or TemporarilyUnavailableException. */
    public function acquire(?float $now = null): int
    {
        try { // the core's clock only when the answer needs it (admit_now)
            return $now === null ? respite_gate_admit_now($this->ptr) : respite_gate_admit($this->ptr, $now);
        } finally {
            $this->pollEvents();
        }
    }

    /** Asks to make a call without throwing on a refusal. */
    public function check(?float $now = null): Decision
    {
        $out = new \respite_decision();
        $this->polled(fn () => respite_gate_check($this->ptr, $now ?? respite_now(), $out));
        return new Decision($out->allowed !== 0, $out->probe !== 0, $out->permit, $out->retry_after);
    }

    /** Seconds until a call may be admitted: 0 when one would be, INF under recover_never. */
    public function retryAfter(?float $now = null): float
    {
        return respite_gate_retry_after($this->ptr, $now ?? respite_now());
    }

    /**
     * Reports an outcome (an Outcome, name or number) with its permit (0: none, counted in the
     * current generation); $retryAfter: seconds from a Retry-After header.
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

    /**
     * Reports how a call that threw $e ended, by the gate's classifier (the caller's own
     * Throwable: `request_error`, not counted); returns the outcome.
     */
    public function reportThrowable(\Throwable $e, int $permit = 0, ?float $now = null): Outcome
    {
        [$outcome, , $hint] = $this->classifier->settle($e, null);
        $this->reportCode($outcome->code(), $permit, $hint, $now);
        return $outcome;
    }

    /** G14: closed again, with the first pause, an empty window and a new generation. */
    public function reset(?float $now = null): void
    {
        $this->polled(fn () => respite_gate_reset($this->ptr, $now ?? respite_now()));
    }

    /**
     * Calls $fn() through the gate (refused: TemporarilyUnavailableException, $fn not called).
     * What it returned or threw is reported as $classifier (default: the gate's) judges it; a
     * Throwable is rethrown unchanged (the caller's own is reported as `request_error`).
     * @template T
     * @param callable(): T $fn
     * @return T
     */
    public function call(callable $fn, ?Classifier $classifier = null): mixed
    {
        // The lean path (swig/php.i): admit and $fn in C, the success report and pending events in one more call.
        $permit = 0;
        try {
            $result = respite_php_gate_call($this->ptr, $fn, $permit);
        } catch (\Throwable $e) {
            if ($permit > 0) {
                [$outcome, , $hint] = ($classifier ?? $this->classifier)->settle($e, null);
                $this->reportCode($outcome->code(), $permit, $hint, null);
            } else {
                $this->pollEvents();
            }
            throw $e;
        }
        if (is_object($result) || $classifier !== null || $this->judgesScalars) {
            [$outcome, , $hint] = ($classifier ?? $this->classifier)->result($result);
            if ($outcome !== Outcome::Success) {
                $this->reportCode($outcome->code(), $permit, $hint, null);
                return $result;
            }
        }
        if (respite_php_gate_call_done($this->ptr, $permit) > 0) { // $this->ptr again: $fn may have closed the gate
            $this->pollEvents();
        }
        return $result;
    }

    /**
     * $fn wrapped so that every call goes through call(), its arguments passed on.
     * @template T
     * @param callable(mixed ...): T $fn
     * @return \Closure(mixed ...): T
     */
    public function protect(callable $fn, ?Classifier $classifier = null): \Closure
    {
        return fn (mixed ...$args): mixed => $this->call(static fn (): mixed => $fn(...$args), $classifier);
    }

    /** "closed", "open" or "probing" at $now. */
    public function state(?float $now = null): string
    {
        return (string) respite_gate_state_name(respite_gate_get_state($this->ptr, $now ?? respite_now()));
    }

    /** @return array<string, int|float|string> statistics since the gate was made (reset keeps them) */
    public function stats(): array
    {
        $s = new \respite_gate_stats();
        respite_gate_stats_get($this->ptr, $s);
        return self::statsArray($s);
    }

    /** @internal @return array<string, int|float|string> a raw stats struct's figures (also a sender's gate) */
    public static function statsArray(\respite_gate_stats $s): array
    {
        return array_replace(self::fields($s), ['state' => (string) respite_gate_state_name($s->state)]);
    }

    /** @internal */
    public function reportCode(int $code, int $permit, ?float $hint, ?float $now): void
    {
        try {
            $now === null ? respite_gate_report_now($this->ptr, $permit, $code, $hint ?? 0.0)
                : respite_gate_report($this->ptr, $permit, $code, $hint ?? 0.0, $now);
        } finally {
            $this->pollEvents();
        }
    }

    /** @internal the one rule after a call into the gate: when events are pending, log every one */
    public function pollEvents(): void
    {
        if (respite_gate_events_pending($this->ptr) > 0) {
            $this->drain();
        }
    }
}

<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;
use Respite\Internal\Structs;
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
 *
 * With $fleet (the fleet settings: fleet_url, fleet_quorum, ...) it is a fleet
 * gate (spec section 11): the hosts' gates of one name share their openings
 * through Redis, no call waits on it, and its events (fleet_paused,
 * fleet_store_lost, fleet_rejoined, fleet_probing) are logged as the gate's.
 *
 * call() is the extension's (Internal\NativeGate, ext/gate_call.c; documented in
 * ext/respite.stub.php): admit, $fn and a success's report in C, the rest back in
 * settleCall() and pollEvents().
 */
final class Gate extends Internal\NativeGate
{
    use Handle;
    use Events;

    private const NEXT_EVENT = 'respite_gate_next_event';
    private const KIND = RESPITE_HANDLE_GATE;

    /** @var array<string, mixed> */
    private array $settings;
    private Classifier $classifier;
    /** @var mixed the fleet gate whose local gate $ptr is; null for a gate of this process alone */
    private $fleet = null;

    /**
     * @param array<string, mixed> $settings gate settings by name ('name' is shown in log lines)
     * @param string|null $profile "cloud_request" (the default) or "usage_sharing"
     * @param object|callable|null $logger where events go (PSR-3 shape, callable, or null: error_log)
     * @param string|null $name the `name` setting, when not in $settings
     * @param Classifier|null $classifier what counts in call() and retries (null: Classifier::default())
     * @param array<string, mixed>|null $fleet fleet settings by name: a fleet gate (its `name` is the gate's unless given)
     */
    public function __construct(
        array $settings = [],
        ?string $profile = null,
        $logger = null,
        ?string $name = null,
        ?Classifier $classifier = null,
        ?array $fleet = null,
    ) {
        $this->logTo($logger);
        $this->classifier = $classifier ?? Classifier::default();
        $named = $name === null ? $settings : $settings + ['name' => $name];
        $this->ptr = Settings::with($profile ?? 'gate', $named, function ($raw) use ($fleet) {
            // first: the core refuses another component's settings
            $gate = $fleet === null ? respite_gate_new($raw) : $this->fleetGate($raw, $fleet);
            $this->settings = Settings::read($raw, 'gate');
            return $gate;
        });
        // call()'s own reference; with result rules, call() judges scalars too
        $this->setCallHandle($this->ptr, $this->classifier->judges(null));
    }

    /** The local gate of a new fleet gate, where every call goes; close() frees the fleet gate, and with it that gate. */
    private function fleetGate($raw, array $fleet)
    {
        $fleet += ['name' => (string) respite_settings_get_text($raw, 'name')];
        $this->fleet = Settings::with('fleet', $fleet, static fn ($fleetRaw) => respite_fleet_gate_new($raw, $fleetRaw));
        return respite_fleet_gate_gate($this->fleet);
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

    /**
     * Frees this gate's reference (engines and clients that use it keep theirs); a fleet gate's
     * thread stops (waiting for its exchange under way). Idempotent.
     */
    public function close(): void
    {
        try {
            $this->pollEvents();
        } finally {
            [$fleet, $this->fleet] = [$this->fleet, null];
            $this->setCallHandle(null, false);
            $this->free($fleet === null ? 'respite_gate_free' : static fn () => respite_fleet_gate_free($fleet));
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
        return Structs::decision($out);
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
        return Structs::gateStats($s);
    }

    /**
     * A fleet gate's fleet as its thread last read it (F12): connected, paused, pause_left,
     * hosts_opened, holds_probe, probe_host, host_id, epoch, exchanges, failed_exchanges; null for a
     * gate made without $fleet; the core's ClosedException once closed.
     * @return array<string, bool|int|float|string>|null
     */
    public function fleetView(): ?array
    {
        if ($this->fleet === null && $this->ptr !== null) {
            return null;
        }
        $view = new \respite_fleet_view();
        respite_fleet_gate_view($this->fleet, $view);
        return Structs::fleetView($view);
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

    /**
     * @internal call()'s rest (ext/gate_call.c): reports what $fn threw or returned, as
     * $classifier (null: the gate's) judges it
     */
    public function settleCall(int $permit, ?\Throwable $thrown, mixed $result, ?Classifier $classifier): void
    {
        [$outcome, , $hint] = ($classifier ?? $this->classifier)->settle($thrown, $result);
        $this->reportCode($outcome->code(), $permit, $hint, null); // $this->ptr again: $fn may have closed the gate
    }

    /** @internal the one rule after a call into the gate: when events are pending, log every one */
    public function pollEvents(): void
    {
        if (respite_gate_events_pending($this->ptr) > 0) {
            $this->drain();
        }
    }
}

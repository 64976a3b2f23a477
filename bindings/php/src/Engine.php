<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;
use Respite\Internal\Structs;
use Respite\Internal\Events;

/**
 * The delivery engine (spec section 5): a sender's decisions on the caller's clock, without
 * threads, network or sleeping (the loop over next() is in docs/php.md). Settles by the queue's policy.
 */
final class Engine
{
    use Handle;
    use Events;

    private const NEXT_EVENT = 'respite_engine_next_event';
    private const KIND = RESPITE_HANDLE_ENGINE;

    /** @var mixed the batch taken and not yet settled */
    private $batch = null;

    /**
     * @param array<string, mixed> $settings sender settings by name ('name' is shown in log lines)
     * @param object|callable|null $logger where engine events go (PSR-3 shape, callable, or null: error_log)
     */
    public function __construct(
        private readonly Queue $queue,
        private readonly Gate $gate,
        array $settings = [],
        $logger = null,
    ) {
        $this->logTo($logger);
        $make = static fn ($raw) => respite_engine_new($queue->raw(), $gate->raw(), $raw);
        $this->ptr = Settings::with('sender', $settings, $make);
    }

    /** Frees the engine; a batch in flight goes back to the head of the queue. Idempotent. */
    public function close(): void
    {
        $this->batch = null;
        $this->free('respite_engine_free');
    }

    /** The next action at $now: "send", "wait", "idle" or "done". */
    public function next(?float $now = null): string
    {
        $action = $this->polled(fn () => respite_engine_next($this->ptr, $now ?? respite_now()));
        return (string) respite_action_name($action);
    }

    /** After "wait": seconds until the gate admits again (INF under recover_never). */
    public function waitSeconds(): float
    {
        return respite_engine_wait_seconds($this->ptr);
    }

    /**
     * Takes the next batch and admits it through the gate: the payloads to
     * send, or null when nothing is pending. A refusal throws
     * TemporarilyUnavailableException (the events stay queued).
     * @return list<string>|null
     */
    public function take(?float $now = null): ?array
    {
        $batch = $this->polled(fn () => respite_engine_take($this->ptr, $now ?? respite_now()));
        if ($batch === null) {
            return null;
        }
        $this->batch = $batch;
        return Batch::each($batch, 'respite_php_batch_event_bytes');
    }

    /**
     * The attempts of each event of the batch in flight (1 on its first
     * send), in take() order; [] when none is in flight.
     * @return list<int>
     */
    public function attempts(): array
    {
        return $this->batch === null ? [] : Batch::each($this->batch, 'respite_batch_event_attempts');
    }

    /**
     * S3: how the send of the taken batch ended: an HTTP status, or null
     * for a transport failure. $retryAfter: seconds from a Retry-After header.
     */
    public function settle(?int $httpStatus, ?float $retryAfter = null, ?float $now = null): void
    {
        // The batch stays ours until the core accepts the settle: a rejected
        // one leaves it in flight (S3), to be settled again.
        $this->polled(fn () => respite_engine_settle(
            $this->ptr,
            $this->batch,
            $httpStatus === null ? 1 : 0,
            $httpStatus ?? 0,
            $retryAfter ?? 0.0,
            $now ?? respite_now(),
        ));
        $this->batch = null;
    }

    /** S5: the queue refuses new events; next() drains the rest (within close_timeout_seconds), then "done". */
    public function startClosing(?float $now = null): void
    {
        respite_engine_close($this->ptr, $now ?? respite_now());
    }

    public function isClosing(): bool
    {
        return respite_engine_is_closing($this->ptr) === 1;
    }

    /** Events left unsent when "done" was reached; null before. */
    public function unsent(): ?int
    {
        $unsent = respite_engine_unsent($this->ptr);
        return $unsent < 0 ? null : $unsent;
    }

    public function minEntries(): int
    {
        return respite_engine_min_entries($this->raw());
    }

    public function maxEntries(): int
    {
        return respite_engine_max_entries($this->raw());
    }

    /** @return array<string, int|float|bool|null> */
    public function stats(): array
    {
        $s = new \respite_engine_stats();
        respite_engine_stats_get($this->ptr, $s);
        return Structs::engineStats($s);
    }

    public function queue(): Queue
    {
        return $this->queue;
    }

    public function gate(): Gate
    {
        return $this->gate;
    }

    /** Forwards its gate's events (the one rule), then its own, to the logger. */
    public function pollEvents(): void
    {
        $this->gate->pollEvents();
        if ($this->ptr !== null) {
            $this->drain();
        }
    }
}

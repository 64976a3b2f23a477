<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;
use Respite\Internal\Structs;

/**
 * The bounded delivery queue (spec section 4) of byte payloads; a consumer takes events as a
 * Batch and settles each one; every accepted event is counted under one heading (D9).
 */
final class Queue
{
    use Handle;

    private const KIND = RESPITE_HANDLE_QUEUE;

    /**
     * @param Policy|null $policy null for "@default" (D8); the queue copies what it needs
     * @param array<string, mixed> $settings queue settings by name
     */
    public function __construct(?Policy $policy = null, array $settings = [])
    {
        $this->ptr = Settings::with('queue', $settings, static fn ($raw) => respite_queue_new($policy?->raw(), $raw));
    }

    /** Frees this queue's reference (an engine that uses it keeps its own). Idempotent. */
    public function close(): void
    {
        $this->free('respite_queue_free');
    }

    /** Copies $payload (bytes) in: QueueFullException under drop_newest, TooLargeException over max_bytes. */
    public function enqueue(string $payload, ?float $now = null): void
    {
        respite_queue_enqueue($this->ptr, $payload, $now ?? respite_now());
    }

    /** Refuses every later enqueue; taking and settling still work, to drain. */
    public function stopAccepting(): void
    {
        respite_queue_close($this->ptr);
    }

    public function isAccepting(): bool
    {
        return respite_queue_is_closed($this->ptr) === 0;
    }

    /** Events queued and not taken. */
    public function pending(): int
    {
        return respite_queue_pending($this->ptr);
    }

    /** D6: drops pending events whose age reached event_ttl; returns how many. */
    public function expire(?float $now = null): int
    {
        return respite_queue_expire($this->ptr, $now ?? respite_now());
    }

    /** Up to $maxEvents events from the head as an in-flight batch; null when none is pending. */
    public function take(int $maxEvents = 1, ?float $now = null): ?Batch
    {
        $batch = respite_queue_take($this->ptr, $maxEvents, $now ?? respite_now());
        return $batch === null ? null : new Batch($batch);
    }

    /** Blocks until $minPending events are pending or the queue stops accepting (true), or times out. */
    public function wait(int $minPending, float $timeoutSeconds): bool
    {
        return respite_queue_wait($this->ptr, $minPending, $timeoutSeconds) === 1;
    }

    /** @return array<string, int|float|string|bool> D9 figures, one consistent snapshot */
    public function stats(): array
    {
        $s = new \respite_queue_stats();
        respite_queue_stats_get($this->ptr, $s);
        return Structs::queueStats($s);
    }

    /** D9 checked on a fresh snapshot; throws InternalException with the figures when unbalanced. */
    public function checkAccounting(): void
    {
        respite_queue_check_accounting($this->ptr);
    }
}

<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;

/**
 * Events taken from a Queue, in flight until settled. Settle each with
 * "delivered", "retry", "discarded" or "retries_exhausted"; close() (or
 * dropping the batch) puts retried and unsettled events back at the head.
 * A batch may outlive its queue: settling then throws ClosedException.
 */
final class Batch implements \Countable
{
    use Handle;

    private const KIND = RESPITE_HANDLE_BATCH;

    /** @internal Queue::take() makes batches */
    public function __construct($raw)
    {
        $this->ptr = $raw;
    }

    /** Frees the batch: retried and unsettled events go back to the head (D4). Idempotent. */
    public function close(): void
    {
        $this->free('respite_batch_free');
    }

    public function count(): int
    {
        return respite_batch_count($this->open());
    }

    /** Events not yet settled. */
    public function unsettled(): int
    {
        return respite_batch_unsettled($this->open());
    }

    /** Event $index's payload, byte for byte. */
    public function payload(int $index): string
    {
        return respite_php_batch_event_bytes($this->ptr, $index);
    }

    /** @return list<string> every payload, in queue order */
    public function payloads(): array
    {
        return self::each($this->open(), 'respite_php_batch_event_bytes');
    }

    /** @internal @return list<mixed> $get($batch, $i) for every event of a raw batch (also the engine's) */
    public static function each($batch, callable $get): array
    {
        $out = [];
        for ($i = 0, $n = respite_batch_count($batch); $i < $n; $i++) {
            $out[] = $get($batch, $i);
        }
        return $out;
    }

    /** The event's id: increasing, never reused in its queue (L3). */
    public function id(int $index): int
    {
        return respite_batch_event_id($this->ptr, $index);
    }

    /** Attempts including this one (1 on the first take). */
    public function attempts(int $index): int
    {
        return respite_batch_event_attempts($this->ptr, $index);
    }

    /** Seconds since event $index was first queued. */
    public function age(int $index, ?float $now = null): float
    {
        return respite_batch_event_age($this->ptr, $index, $now ?? respite_now());
    }

    /** How event $index was settled, or null when it is not yet. */
    public function disposition(int $index): ?string
    {
        $d = respite_batch_event_disposition($this->ptr, $index);
        return $d < 0 ? null : (string) respite_disposition_name($d);
    }

    /** Settles event $index; returns the disposition applied ("retry" may be "retries_exhausted", D3). */
    public function settle(int $index, string|int $disposition): string
    {
        $applied = respite_batch_settle($this->ptr, $index, self::code($disposition));
        return (string) respite_disposition_name($applied);
    }

    /** Settles every unsettled event the same way; returns how many. */
    public function settleAll(string|int $disposition): int
    {
        return respite_batch_settle_all($this->ptr, self::code($disposition));
    }

    /** A disposition's number; an unknown name is -1, whose error the core words. */
    private static function code(string|int $disposition): int
    {
        return is_int($disposition) ? $disposition : Disposition::tryFrom($disposition)?->code() ?? -1;
    }

    /** The handle, or the core's ClosedException (count() answers 0 quietly). */
    private function open()
    {
        return $this->ptr ?? respite_batch_event_size(null, 0);
    }
}

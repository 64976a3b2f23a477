<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;
use Respite\Internal\Structs;
use Respite\Internal\Events;

/**
 * Sends events in batches from a background thread of this process (spec section 5), through
 * its own gate; see docs/php.md. Events reach the logger when this object is used or polled.
 */
final class Sender
{
    use Handle;

    private const KIND = RESPITE_HANDLE_SENDER;
    use Events;

    private const NEXT_EVENT = 'respite_sender_next_event';

    /** The unsent count of shutdown(), once it ran. */
    private ?int $unsent = null;

    /**
     * @param array<string, mixed> $settings sender settings by name (url is required)
     * @param array<string, mixed> $gate gate settings by name, over $gateProfile's defaults
     * @param array<string, mixed> $queue queue settings by name (overflow, max_bytes)
     * @param Policy|null $policy the delivery policy (null: "@default"); the sender holds its own reference
     * @param array<string, string> $headers added to every request
     * @param object|callable|null $logger where events go (PSR-3 shape, callable, or null: error_log)
     * @param string|null $name the sender's `name` setting (shown in log lines), when not in $settings
     * @param string $gateProfile "usage_sharing" (the default) or "cloud_request"
     */
    public function __construct(
        array $settings,
        array $gate = [],
        array $queue = [],
        ?Policy $policy = null,
        array $headers = [],
        $logger = null,
        ?string $name = null,
        string $gateProfile = 'usage_sharing',
    ) {
        $this->logTo($logger);
        $named = $name === null ? $settings : $settings + ['name' => $name];
        $this->ptr = Settings::with('sender', $named, static fn ($senderRaw) => Settings::with(
            $gateProfile,
            $gate,
            static fn ($gateRaw) => Settings::with(
                'queue',
                $queue,
                static fn ($queueRaw) => respite_sender_new($senderRaw, $gateRaw, $queueRaw, $policy?->raw()),
            ),
        ));
        try {
            foreach ($headers as $headerName => $value) {
                $this->addHeader((string) $headerName, (string) $value);
            }
        } catch (\Throwable $e) {
            $this->close();
            throw $e;
        }
    }

    /** Adds a header to every later request (from the next batch); the core checks it. */
    public function addHeader(string $name, string $value): void
    {
        respite_sender_add_header($this->ptr, $name, $value);
    }

    /** Queues one event (bytes, sent as given), never waiting for the network. */
    public function enqueue(string $event): void
    {
        respite_sender_enqueue($this->ptr, $event);
        $this->pollEvents();
    }

    /**
     * S11: sends what is queued and waits up to $timeoutSeconds until nothing is pending or in flight;
     * TemporarilyUnavailableException at once while paused, TransportException when the time runs out.
     */
    public function flush(float $timeoutSeconds = 5.0): void
    {
        $this->polled(fn () => respite_sender_flush($this->ptr, $timeoutSeconds));
    }

    /**
     * S12: stops accepting and stops the thread (draining for up to close_timeout_seconds unless
     * paused); returns the events not sent, again on a later call. stats() stays readable until close().
     */
    public function shutdown(): int
    {
        if ($this->unsent !== null && $this->ptr !== null) {
            return $this->unsent;
        }
        $this->unsent = respite_sender_close($this->ptr);
        $this->pollEvents();
        return $this->unsent;
    }

    /** shutdown(), then frees the sender; returns the events not sent. Idempotent. */
    public function close(): int
    {
        if ($this->ptr !== null) {
            try {
                $this->shutdown();
            } catch (\Throwable) {
                // a logger failing at close must not leak the sender
            }
            $this->free('respite_sender_free');
        }
        return $this->unsent ?? 0;
    }

    /** True while the gate refuses: sending is paused. */
    public function isPaused(): bool
    {
        return $this->stats()['paused'];
    }

    /**
     * S13: the queue's D9 figures, the engine's, the gate's, HTTP requests made, bytes_sent (after gzip).
     * @return array{queue: array<string, mixed>, engine: array<string, mixed>, gate: array<string, mixed>,
     *               requests: int, bytes_sent: int, paused: bool, closed: bool}
     */
    public function stats(): array
    {
        $s = new \respite_sender_stats();
        respite_sender_stats_get($this->ptr, $s);
        $this->pollEvents();
        return Structs::senderStats($s);
    }

    /** Forwards the events that happened since the last look to the logger. */
    public function pollEvents(): void
    {
        if ($this->ptr !== null) {
            $this->drain();
        }
    }
}

<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Errors;
use Respite\Internal\Log;
use Respite\Internal\WithSettings;

/**
 * The delivery engine (spec section 5): a sender's decisions on the
 * caller's clock, without threads, network or sleeping. A sender loop:
 *
 *   while (true) {
 *       switch ($engine->next()) {
 *           case 'send':
 *               $payloads = $engine->take();
 *               $status = send($payloads);              // your HTTP call
 *               $engine->settle($status);               // null status: transport failure
 *               break;
 *           case 'wait': usleep((int) ($engine->waitSeconds() * 1e6)); break;
 *           case 'idle': $queue->wait($engine->minEntries(), 1.0); break;
 *           case 'done': break 2;
 *       }
 *   }
 *
 * The engine borrows its queue, gate and policy: they stay alive while it
 * does, and closing one of them closes the engine first.
 */
final class Engine
{
    /** @var mixed the raw handle; null once closed */
    private $ptr;
    /** @var mixed the batch taken and not yet settled */
    private $batch = null;
    /** @var object|callable|null */
    private $logger;
    /** @var list<Event> */
    private array $recent = [];

    /**
     * @param Policy|null $policy the queue's policy (null: "@default")
     * @param array<string, mixed> $settings sender settings by name
     * @param object|callable|null $logger where engine events go (PSR-3 shape, callable, or null: error_log)
     */
    public function __construct(
        private readonly Queue $queue,
        private readonly Gate $gate,
        private readonly ?Policy $policy = null,
        array $settings = [],
        $logger = null,
    ) {
        Log::check($logger);
        $this->logger = $logger;
        foreach ([$queue, $gate, $policy] as $borrowed) {
            if ($borrowed !== null && $borrowed->isClosed()) {
                $borrowed instanceof Policy ? $borrowed->toJson() : $borrowed->stats(); // ClosedException
            }
        }
        $this->ptr = WithSettings::make(
            'sender',
            $settings,
            static fn ($raw) => respite_engine_new($queue->raw(), $gate->raw(), $raw),
        );
        $queue->lend($this);
        $gate->lend($this);
        $policy?->lend($this);
    }

    public function __destruct()
    {
        $this->close();
    }

    /** Frees the engine; a batch in flight goes back to the head of the queue. Idempotent. */
    public function close(): void
    {
        $ptr = $this->ptr;
        if ($ptr === null) {
            return;
        }
        $this->ptr = null;
        $this->batch = null;
        respite_engine_free($ptr);
    }

    public function isClosed(): bool
    {
        return $this->ptr === null;
    }

    /** The next action at $now: "send", "wait", "idle" or "done". */
    public function next(?float $now = null): string
    {
        try {
            $action = respite_engine_next($this->ptr, $now ?? respite_now());
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        $this->poll();
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
        try {
            $batch = respite_engine_take($this->ptr, $now ?? respite_now());
        } catch (\Exception $e) {
            $error = Errors::translate($e);
            if ($error instanceof TemporarilyUnavailableException) {
                $error = Errors::refusal($this->gate->retryAfter($now));
            }
            $this->poll();
            throw $error;
        }
        if ($batch === null) {
            return null;
        }
        $this->batch = $batch;
        $payloads = [];
        try {
            for ($i = 0, $n = respite_batch_count($batch); $i < $n; $i++) {
                $payloads[] = respite_php_batch_event_bytes($batch, $i);
            }
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        return $payloads;
    }

    /**
     * The attempts of each event of the batch in flight (1 on its first
     * send), in take() order; [] when none is in flight.
     * @return list<int>
     */
    public function attempts(): array
    {
        $out = [];
        if ($this->batch !== null) {
            try {
                for ($i = 0, $n = respite_batch_count($this->batch); $i < $n; $i++) {
                    $out[] = respite_batch_event_attempts($this->batch, $i);
                }
            } catch (\Exception $e) {
                throw Errors::translate($e);
            }
        }
        return $out;
    }

    /**
     * S3: how the send of the taken batch ended: an HTTP status, or null
     * for a transport failure. $retryAfter: seconds from a Retry-After header.
     */
    public function settle(?int $httpStatus, ?float $retryAfter = null, ?float $now = null): void
    {
        $batch = $this->batch;
        $this->batch = null;
        try {
            respite_engine_settle(
                $this->ptr,
                $batch,
                $httpStatus === null ? 1 : 0,
                $httpStatus ?? 0,
                $retryAfter ?? 0.0,
                $now ?? respite_now(),
            );
        } catch (\Exception $e) {
            throw Errors::translate($e);
        } finally {
            $this->poll();
        }
    }

    /**
     * S5: starts closing: the queue refuses new events; next() drains what
     * is pending (until close_timeout_seconds, or the gate refuses), then
     * says "done".
     */
    public function startClosing(?float $now = null): void
    {
        try {
            respite_engine_close($this->ptr, $now ?? respite_now());
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    public function isClosing(): bool
    {
        return respite_engine_is_closing($this->ptr) === 1;
    }

    /** Events left unsent when "done" was reached; null before. */
    public function unsent(): ?int
    {
        try {
            $unsent = respite_engine_unsent($this->ptr);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        return $unsent < 0 ? null : $unsent;
    }

    public function minEntries(): int
    {
        return respite_engine_min_entries($this->open());
    }

    public function maxEntries(): int
    {
        return respite_engine_max_entries($this->open());
    }

    /** @return array<string, int|float|bool|null> */
    public function stats(): array
    {
        $s = new \respite_engine_stats();
        try {
            respite_engine_stats_get($this->ptr, $s);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        return self::statsArray($s);
    }

    /**
     * @internal the figures of a raw stats struct (also a sender's engine)
     * @return array<string, mixed>
     */
    public static function statsArray(\respite_engine_stats $s): array
    {
        return [
            'sends' => $s->sends, 'probes' => $s->probes, 'sends_failed' => $s->sends_failed,
            'refusals' => $s->refusals, 'events_sent' => $s->events_sent,
            'unsent' => $s->unsent < 0 ? null : $s->unsent, 'closing' => $s->closing !== 0,
            'closed_while_paused' => $s->closed_while_paused !== 0, 'close_deadline' => $s->close_deadline,
        ];
    }

    /**
     * The engine's own events (unsent_at_close) since the last call; the
     * gate's are on the gate (Gate::takeEvents()).
     * @return list<Event>
     */
    public function takeEvents(): array
    {
        $this->open();
        $this->poll();
        $out = $this->recent;
        $this->recent = [];
        return $out;
    }

    public function queue(): Queue
    {
        return $this->queue;
    }

    public function gate(): Gate
    {
        return $this->gate;
    }

    public function policy(): ?Policy
    {
        return $this->policy;
    }

    private function open()
    {
        if ($this->ptr === null) {
            $this->unsent(); // throws ClosedException worded by the core
        }
        return $this->ptr;
    }

    private function poll(): void
    {
        $this->gate->pollEvents();
        if ($this->ptr === null) {
            return;
        }
        $raw = new \respite_event();
        $events = [];
        while (respite_engine_next_event($this->ptr, $raw) === 1) {
            $events[] = Event::fromRaw($raw);
        }
        if ($events !== []) {
            $this->recent = array_slice(array_merge($this->recent, $events), -64);
            Log::events($this->logger, null, $events);
        }
    }
}

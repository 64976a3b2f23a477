<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;

/**
 * A delivery policy (spec section 4): what happens to an event whose delivery failed. From
 * JSON or Policy::builder(), validated once (InvalidPolicyException lists every problem).
 */
final class Policy
{
    use Handle;

    private const KIND = RESPITE_HANDLE_POLICY;

    /** @internal use fromJson(), builder() or default() */
    public function __construct($raw)
    {
        $this->ptr = $raw;
    }

    /** Parses and validates a JSON document. */
    public static function fromJson(string $json): self
    {
        return new self(respite_policy_from_json_n($json));
    }

    /** D8: the built-in "@default" policy (any error discarded, capacity 1000). */
    public static function default(): self
    {
        return new self(respite_policy_default());
    }

    /** A policy made without JSON, validated by build() with the same rules and messages. */
    public static function builder(?string $name, int $maximumCapacity): PolicyBuilder
    {
        return new PolicyBuilder($name, $maximumCapacity);
    }

    /** Frees this policy's reference (queues and senders that use it keep theirs). Idempotent. */
    public function close(): void
    {
        $this->free('respite_policy_free');
    }

    public function name(): string
    {
        return (string) respite_policy_name($this->raw());
    }

    public function maximumCapacity(): int
    {
        return respite_policy_maximum_capacity($this->raw());
    }

    /** 0 when nothing retries. */
    public function retryTimes(): int
    {
        return respite_policy_retry_times($this->raw());
    }

    /** Seconds; 0 when unset. */
    public function eventTtl(): int
    {
        return respite_policy_event_ttl($this->raw());
    }

    /** 1 when unset (D7). */
    public function prefetchCount(): int
    {
        return respite_policy_prefetch_count($this->raw());
    }

    /** @return list<array{on: string, strategy: string}> the error handlers in order */
    public function handlers(): array
    {
        $ptr = $this->raw();
        $out = [];
        for ($i = 0, $n = respite_policy_handler_count($ptr); $i < $n; $i++) {
            $out[] = [
                'on' => (string) respite_policy_handler_on($ptr, $i),
                'strategy' => (string) respite_strategy_name(respite_policy_handler_strategy($ptr, $i)),
            ];
        }
        return $out;
    }

    /** D2: "retry" or "discard" for a failed attempt: an HTTP status, or a transport failure (as 503). */
    public function strategyFor(?int $httpStatus, bool $transportFailed = false): string
    {
        $strategy = respite_policy_strategy_for(
            $this->ptr,
            $transportFailed || $httpStatus === null ? 1 : 0,
            $httpStatus ?? 0,
        );
        return (string) respite_strategy_name($strategy);
    }

    /** Canonical compact JSON; reads back as an equal policy. */
    public function toJson(): string
    {
        return respite_policy_to_json($this->ptr);
    }
}

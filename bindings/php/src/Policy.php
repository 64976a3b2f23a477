<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Errors;
use Respite\Internal\Lender;

/**
 * A delivery policy (spec section 4): what happens to an event whose
 * delivery failed. Made from Astarte's JSON or with Policy::builder(),
 * validated once (InvalidPolicyException lists every problem), immutable.
 *
 *   $policy = Policy::fromJson('{"name": "edgehog", "maximum_capacity": 100, "retry_times": 3,
 *       "error_handlers": [{"on": "server_error", "strategy": "retry"}]}');
 */
final class Policy
{
    use Lender;

    /** @internal use fromJson(), builder() or default() */
    public function __construct($raw)
    {
        $this->ptr = $raw;
    }

    /** Parses and validates a JSON document. */
    public static function fromJson(string $json): self
    {
        $problems = respite_problems_new();
        try {
            return new self(respite_policy_from_json_n($json, $problems));
        } catch (\Exception $e) {
            throw Errors::invalidPolicy($e, $problems);
        } finally {
            respite_problems_free($problems);
        }
    }

    /** D8: the built-in "@default" policy (any error discarded, capacity 1000). */
    public static function default(): self
    {
        try {
            return new self(respite_policy_default());
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    /** A policy made without JSON, validated by build() with the same rules and messages. */
    public static function builder(?string $name, int $maximumCapacity): PolicyBuilder
    {
        return new PolicyBuilder($name, $maximumCapacity);
    }

    /** Frees the policy (and closes engines that borrow it). Idempotent. */
    public function close(): void
    {
        $this->release('respite_policy_free');
    }

    public function name(): string
    {
        return (string) respite_policy_name($this->open());
    }

    public function maximumCapacity(): int
    {
        return respite_policy_maximum_capacity($this->open());
    }

    /** 0 when nothing retries. */
    public function retryTimes(): int
    {
        return respite_policy_retry_times($this->open());
    }

    /** Seconds; 0 when unset. */
    public function eventTtl(): int
    {
        return respite_policy_event_ttl($this->open());
    }

    /** 1 when unset (D7). */
    public function prefetchCount(): int
    {
        return respite_policy_prefetch_count($this->open());
    }

    /** @return list<array{on: string, strategy: string}> the error handlers in order */
    public function handlers(): array
    {
        $ptr = $this->open();
        $out = [];
        for ($i = 0, $n = respite_policy_handler_count($ptr); $i < $n; $i++) {
            $out[] = [
                'on' => (string) respite_policy_handler_on($ptr, $i),
                'strategy' => (string) respite_strategy_name(respite_policy_handler_strategy($ptr, $i)),
            ];
        }
        return $out;
    }

    /**
     * D2: "retry" or "discard" for a failed attempt: an HTTP status 400-599,
     * or a transport failure (matched as 503).
     */
    public function strategyFor(?int $httpStatus, bool $transportFailed = false): string
    {
        try {
            $strategy = respite_policy_strategy_for(
                $this->ptr,
                $transportFailed || $httpStatus === null ? 1 : 0,
                $httpStatus ?? 0,
            );
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        return (string) respite_strategy_name($strategy);
    }

    /** Canonical compact JSON; reads back as an equal policy. */
    public function toJson(): string
    {
        try {
            return respite_policy_to_json($this->ptr);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    /** @internal */
    public function lend(Engine $engine): void
    {
        $this->addBorrower($engine);
    }

    /** The handle, or ClosedException worded by the core (its accessors answer NULL quietly). */
    private function open()
    {
        if ($this->ptr === null) {
            $this->toJson();
        }
        return $this->ptr;
    }
}

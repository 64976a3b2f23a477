<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Errors;

/**
 * A delivery policy without JSON (Policy::builder()). Setters record
 * values; build() validates with the JSON path's rules and messages, the
 * problems' pointers naming the JSON field each value stands for.
 */
final class PolicyBuilder
{
    /** @var mixed */
    private $ptr;

    public function __construct(?string $name, int $maximumCapacity)
    {
        try {
            $this->ptr = respite_policy_builder_new($name, $maximumCapacity);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
    }

    public function __destruct()
    {
        $ptr = $this->ptr;
        $this->ptr = null;
        respite_policy_builder_free($ptr);
    }

    /**
     * @param string $on "client_error", "server_error", "any_error" or codes ("404,500")
     * @param string $strategy "discard" or "retry"
     */
    public function addHandler(string $on, string $strategy): self
    {
        return $this->apply(fn () => respite_policy_builder_add_handler($this->ptr, $on, $strategy));
    }

    public function retryTimes(int $retryTimes): self
    {
        return $this->apply(fn () => respite_policy_builder_set_retry_times($this->ptr, $retryTimes));
    }

    public function eventTtl(int $seconds): self
    {
        return $this->apply(fn () => respite_policy_builder_set_event_ttl($this->ptr, $seconds));
    }

    public function prefetchCount(int $prefetchCount): self
    {
        return $this->apply(fn () => respite_policy_builder_set_prefetch_count($this->ptr, $prefetchCount));
    }

    /** Validates and makes the policy; the builder stays usable. */
    public function build(): Policy
    {
        $problems = respite_problems_new();
        try {
            return new Policy(respite_policy_builder_build($this->ptr, $problems));
        } catch (\Exception $e) {
            throw Errors::invalidPolicy($e, $problems);
        } finally {
            respite_problems_free($problems);
        }
    }

    private function apply(callable $set): self
    {
        try {
            $set();
        } catch (\Exception $e) {
            throw Errors::translate($e);
        }
        return $this;
    }
}

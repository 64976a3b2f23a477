<?php
declare(strict_types=1);

namespace Respite;

/**
 * A delivery policy without JSON (Policy::builder()): build() validates with the JSON path's
 * rules and messages, each problem's pointer naming the JSON field its value stands for.
 */
final class PolicyBuilder
{
    /** @var mixed */
    private $ptr;

    public function __construct(?string $name, int $maximumCapacity)
    {
        $this->ptr = respite_policy_builder_new($name, $maximumCapacity);
    }

    public function __destruct()
    {
        respite_policy_builder_free($this->ptr);
    }

    /**
     * @param string $on "client_error", "server_error", "any_error" or codes ("404,500")
     * @param string $strategy "discard" or "retry"
     */
    public function addHandler(string $on, string $strategy): self
    {
        respite_policy_builder_add_handler($this->ptr, $on, $strategy);
        return $this;
    }

    public function retryTimes(int $retryTimes): self
    {
        respite_policy_builder_set_retry_times($this->ptr, $retryTimes);
        return $this;
    }

    public function eventTtl(int $seconds): self
    {
        respite_policy_builder_set_event_ttl($this->ptr, $seconds);
        return $this;
    }

    public function prefetchCount(int $prefetchCount): self
    {
        respite_policy_builder_set_prefetch_count($this->ptr, $prefetchCount);
        return $this;
    }

    /** Validates and makes the policy; the builder stays usable. */
    public function build(): Policy
    {
        return new Policy(respite_policy_builder_build($this->ptr));
    }
}

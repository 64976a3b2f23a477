<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;

/** The answer to one Client::request() (spec C8); the native response is kept for header() and reportUnusable(). */
final class Response
{
    use Handle;

    private const KIND = RESPITE_HANDLE_RESPONSE;

    /** HTTP status of the last attempt; 0 when it did not complete. */
    public readonly int $status;
    /** The body as bytes ("" when none). */
    public readonly string $body;
    /** libcurl's text when the transport failed, "" otherwise. */
    public readonly string $error;
    /** Seconds from a Retry-After header of a 429/503 answer; 0 when none. */
    public readonly float $retryAfter;
    /** Attempts made, retries included. */
    public readonly int $attempts;
    /** Seconds the whole call took. */
    public readonly float $elapsed;
    private Outcome $outcome;

    /** @internal from a raw response, which this object now owns */
    public function __construct($raw)
    {
        $this->ptr = $raw;
        $this->status = respite_response_status($raw);
        $this->outcome = Outcome::fromCode(respite_response_outcome($raw));
        $this->body = (string) respite_php_response_body($raw);
        $this->error = (string) respite_response_error($raw);
        $this->retryAfter = respite_response_retry_after($raw);
        $this->attempts = respite_response_attempts($raw);
        $this->elapsed = respite_response_elapsed_seconds($raw);
    }

    /** Frees the native response (the figures stay readable; header() then throws ClosedException). Idempotent. */
    public function close(): void
    {
        $this->free('respite_response_free');
    }

    /** success, request_error, throttled, server_error, transport, or unusable after Client::reportUnusable(). */
    public function outcome(): Outcome
    {
        return $this->outcome;
    }

    /** True for a 2xx/3xx answer nobody reported unusable. */
    public function isSuccess(): bool
    {
        return $this->outcome === Outcome::Success;
    }

    /**
     * The value of a header of the final answer (name case-insensitive, the last one wins), or null.
     * ClosedException ("response is closed") after close().
     */
    public function header(string $name): ?string
    {
        return respite_response_header($this->raw(), $name);
    }

    /** The body decoded as JSON (associative arrays); JsonException when it is not JSON. */
    public function json(): mixed
    {
        return json_decode($this->body, true, 512, JSON_THROW_ON_ERROR);
    }

    /** @internal after a report of unusable */
    public function refresh(): void
    {
        $this->outcome = Outcome::fromCode(respite_response_outcome($this->ptr));
    }
}

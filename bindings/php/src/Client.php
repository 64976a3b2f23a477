<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;

/**
 * HTTP calls through a gate, with libcurl (spec section 6). The gate is
 * asked before every attempt (a refusal throws
 * TemporarilyUnavailableException and sends nothing); each attempt's
 * outcome is reported to it, and retries follow the back-off. A failed
 * call still gives a Response. Connections are reused; the client holds
 * its own references to the gate and the back-off.
 */
final class Client
{
    use Handle;

    /** @var array<string, mixed> */
    private array $settings;

    /**
     * @param array<string, mixed> $settings client settings by name: timeout_seconds, user_agent
     * @param Gate|null $gate asked before every attempt (null: none)
     * @param Backoff|null $backoff retries (null: one attempt)
     */
    public function __construct(
        array $settings = [],
        private readonly ?Gate $gate = null,
        private readonly ?Backoff $backoff = null,
    ) {
        $this->ptr = Settings::with('client', $settings, function ($raw) use ($gate, $backoff) {
            $this->settings = Settings::read($raw, 'client');
            return respite_client_new($raw, $gate?->raw(), $backoff?->raw());
        });
    }

    /** Frees the client and its connections. Idempotent. */
    public function close(): void
    {
        $this->free('respite_client_free');
    }

    /** @return array<string, mixed> every client setting's value, defaults included */
    public function settings(): array
    {
        return $this->settings;
    }

    public function gate(): ?Gate
    {
        return $this->gate;
    }

    /**
     * One call: $method ("GET", "POST", ...) to $url (http:// or https://).
     * $headers: ['Name' => 'value', ...] or ['Name: value', ...].
     * $body: bytes (null: none).
     *
     * Throws TemporarilyUnavailableException when the gate refuses (no
     * request is made), InvalidArgumentException for a bad method, URL or
     * header (worded by the core), ClosedException after close().
     */
    public function request(string $method, string $url, array $headers = [], ?string $body = null): Response
    {
        $lines = self::headerLines($headers);
        try {
            return new Response(respite_client_request($this->ptr, $method, $url, $lines, $body ?? ''));
        } finally {
            // the attempts' reports may have moved the gate: log its events
            $this->gate?->pollEvents();
        }
    }

    /** request('GET', ...) */
    public function get(string $url, array $headers = []): Response
    {
        return $this->request('GET', $url, $headers);
    }

    /** request('POST', ...) */
    public function post(string $url, ?string $body, array $headers = []): Response
    {
        return $this->request('POST', $url, $headers, $body);
    }

    /** request('PUT', ...) */
    public function put(string $url, ?string $body, array $headers = []): Response
    {
        return $this->request('PUT', $url, $headers, $body);
    }

    /** request('DELETE', ...) */
    public function delete(string $url, array $headers = []): Response
    {
        return $this->request('DELETE', $url, $headers);
    }

    /**
     * C4: the answer was a success but its body cannot be used (empty, not
     * parseable, an error object): the gate counts one `unusable` failure
     * and the response's outcome becomes unusable. Only a success can be
     * reported so (InvalidArgumentException, worded by the core); a second
     * report of the same response changes nothing.
     */
    public function reportUnusable(Response $response): void
    {
        try {
            respite_client_report_unusable($this->ptr, $response->raw());
        } finally {
            $this->gate?->pollEvents();
        }
        $response->refresh();
    }

    /**
     * "Name: value" lines joined by "\n", as the core takes them; the core
     * checks each line. A line break inside a name or value would smuggle
     * in another header: refused here.
     */
    private static function headerLines(array $headers): ?string
    {
        if ($headers === []) {
            return null;
        }
        $lines = [];
        foreach ($headers as $name => $value) {
            $line = is_int($name) ? (string) $value : $name . ': ' . $value;
            if (!is_int($name) && strpbrk($name . $value, "\r\n") !== false) {
                // the sender's rule, as respite_sender_add_header words it
                throw new InvalidArgumentException(sprintf(
                    'header %s: name and value must be text without line breaks (got a line break)',
                    json_encode($name),
                ));
            }
            $lines[] = $line;
        }
        return implode("\n", $lines);
    }
}

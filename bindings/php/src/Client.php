<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Handle;

/**
 * HTTP calls with libcurl (spec section 6): the gate is asked before every attempt and told
 * its outcome; retries follow the back-off. A failed call still gives a Response.
 */
final class Client
{
    use Handle;

    private const KIND = RESPITE_HANDLE_CLIENT;

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
     * One call (the gate refused: TemporarilyUnavailableException, nothing sent).
     * $headers: ['Name' => 'value', ...] or ['Name: value', ...]; $body: bytes (null: none).
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
     * C4: a success whose body cannot be used (empty, not parseable, an error object): the gate
     * counts one `unusable` failure and the response's outcome becomes unusable.
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
     * "Name: value" lines joined by "\n", as the core takes (and checks) them. A line break in a
     * name or value would smuggle in another header: refused with the sender's words.
     */
    private static function headerLines(array $headers): ?string
    {
        $lines = [];
        foreach ($headers as $name => $value) {
            if (!is_int($name) && strpbrk($name . $value, "\r\n") !== false) {
                throw new InvalidArgumentException(sprintf(
                    'header %s: name and value must be text without line breaks (got a line break)',
                    json_encode($name),
                ));
            }
            $lines[] = is_int($name) ? (string) $value : "$name: $value";
        }
        return $headers === [] ? null : implode("\n", $lines);
    }
}

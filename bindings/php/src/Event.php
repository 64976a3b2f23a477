<?php
declare(strict_types=1);

namespace Respite;

/** One transition of a gate (or of a sender) with its time and figures (G18). */
final class Event
{
    /** "recovery_started", "recovery_extended", "probing", "recovered", "reset", ... */
    public readonly string $type;
    /** When it happened, on the caller's clock. */
    public readonly float $at;
    /** recovery_started: failures in the window. */
    public readonly int $failures;
    /** recovery_started: failures_window_seconds. */
    public readonly float $window;
    /** recovery_started / recovery_extended: seconds. */
    public readonly float $pause;
    /** send_failed: the HTTP status, 0 for a transport failure. */
    public readonly int $httpStatus;
    /** unsent_at_close: events not sent. */
    public readonly int $count;
    /** send_failed: the start of the body or the error. */
    public readonly string $detail;
    /** The whole log line, as the core words it (respite_event_message): the same in every language (G18). */
    public readonly string $message;
    /** The name of the gate, engine or sender it came from ("" when unnamed). */
    public readonly string $source;
    private bool $warning;

    /** @internal a copy of the raw struct (which the next event overwrites) */
    public function __construct(\respite_event $raw)
    {
        $this->type = (string) respite_event_type_name($raw->type);
        $this->at = $raw->at;
        $this->failures = $raw->failures;
        $this->window = $raw->window;
        $this->pause = $raw->pause;
        $this->httpStatus = $raw->http_status;
        $this->count = $raw->count;
        $this->detail = (string) $raw->detail;
        $this->message = (string) respite_event_message($raw);
        $this->source = (string) $raw->source;
        $this->warning = respite_event_is_warning($raw->type) === 1;
    }

    /** A warning when sending pauses or a pause grows; information otherwise. */
    public function isWarning(): bool
    {
        return $this->warning;
    }

    /** One log line: the core's words, the same in every language. */
    public function describe(): string
    {
        return $this->message;
    }

    /** @return array<string, mixed> the figures, for a logger's context */
    public function toArray(): array
    {
        return [
            'type' => $this->type, 'at' => $this->at, 'failures' => $this->failures, 'window' => $this->window,
            'pause' => $this->pause, 'http_status' => $this->httpStatus, 'count' => $this->count,
            'detail' => $this->detail, 'message' => $this->message, 'source' => $this->source,
        ];
    }
}

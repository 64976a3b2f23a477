<?php
declare(strict_types=1);

namespace Respite;

/** One transition of a gate (or of a sender) with its time and figures (G18). */
final class Event
{
    public function __construct(
        /** "recovery_started", "recovery_extended", "probing", "recovered", "reset", ... */
        public readonly string $type,
        /** When it happened, on the caller's clock. */
        public readonly float $at,
        /** recovery_started: failures in the window. */
        public readonly int $failures = 0,
        /** recovery_started: failures_window_seconds. */
        public readonly float $window = 0.0,
        /** recovery_started / recovery_extended: seconds. */
        public readonly float $pause = 0.0,
        /** send_failed: the HTTP status, 0 for a transport failure. */
        public readonly int $httpStatus = 0,
        /** unsent_at_close: events not sent. */
        public readonly int $count = 0,
        /** send_failed: the start of the body or the error. */
        public readonly string $detail = '',
        private readonly bool $warning = false,
        /** The whole log line, as the core words it (respite_event_message): the same in every language (G18). */
        public readonly string $message = '',
        /** The name of the gate, engine or sender it came from ("" when unnamed). */
        public readonly string $source = '',
    ) {
    }

    /** @internal from the raw struct */
    public static function fromRaw(\respite_event $raw): self
    {
        return new self(
            (string) respite_event_type_name($raw->type),
            $raw->at,
            $raw->failures,
            $raw->window,
            $raw->pause,
            $raw->http_status,
            $raw->count,
            (string) $raw->detail,
            respite_event_is_warning($raw->type) === 1,
            (string) respite_event_message($raw),
            (string) $raw->source,
        );
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

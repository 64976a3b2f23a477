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
        );
    }

    /** A warning when sending pauses or a pause grows; information otherwise. */
    public function isWarning(): bool
    {
        return $this->warning;
    }

    /** One log line. */
    public function describe(): string
    {
        return match ($this->type) {
            'recovery_started' => sprintf(
                'sending paused for %ss after %d failures within %ss',
                self::seconds($this->pause),
                $this->failures,
                self::seconds($this->window),
            ),
            'recovery_extended' => sprintf('sending paused again for %ss after a failed probe', self::seconds($this->pause)),
            'probing' => 'pause ended; probing the service',
            'recovered' => 'sending resumed: the service answered',
            'reset' => 'gate reset; sending resumed',
            'send_failed' => sprintf(
                'send failed (%s): %s',
                $this->httpStatus !== 0 ? 'status ' . $this->httpStatus : 'transport failure',
                $this->detail,
            ),
            'unsent_at_close' => sprintf('%d events were not sent at close', $this->count),
            default => $this->type,
        };
    }

    /** @return array<string, mixed> the figures, for a logger's context */
    public function toArray(): array
    {
        return [
            'type' => $this->type, 'at' => $this->at, 'failures' => $this->failures, 'window' => $this->window,
            'pause' => $this->pause, 'http_status' => $this->httpStatus, 'count' => $this->count,
            'detail' => $this->detail,
        ];
    }

    private static function seconds(float $s): string
    {
        return is_infinite($s) ? 'INF' : rtrim(rtrim(sprintf('%.3f', $s), '0'), '.');
    }
}

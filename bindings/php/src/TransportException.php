<?php
declare(strict_types=1);

namespace Respite;

/**
 * The HTTP call did not complete (status "transport"). Backoff::run throws
 * it, with the core's message ("the call failed after 3 attempts: last
 * outcome server_error (status 503)"), when the schedule ends on a
 * failure; getPrevious() is the last attempt's Throwable.
 */
class TransportException extends RespiteException
{
    public const STATUS = 'transport';

    public function __construct(
        string $message,
        ?\Throwable $previous = null,
        private ?int $attempts = null,
        private ?Outcome $lastOutcome = null,
    ) {
        parent::__construct($message, self::STATUS, $previous);
    }

    /** Attempts made, when a retry loop gave up; null otherwise. */
    public function getAttempts(): ?int
    {
        return $this->attempts;
    }

    /** The last attempt's outcome, when a retry loop gave up; null otherwise. */
    public function getLastOutcome(): ?Outcome
    {
        return $this->lastOutcome;
    }
}

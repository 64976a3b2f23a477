<?php
declare(strict_types=1);

namespace Respite;

/**
 * The gate refused the call (G17): calls to the service are restricted for
 * a while. getRetryAfter() is in seconds (INF when the gate recovers only
 * after a reset).
 */
class TemporarilyUnavailableException extends RespiteException
{
    public const STATUS = 'temporarily_unavailable';

    private float $retryAfter;

    public function __construct(string $message, float $retryAfter = NAN, ?\Throwable $previous = null)
    {
        parent::__construct($message, self::STATUS, $previous);
        $this->retryAfter = $retryAfter;
    }

    /** Seconds until a call may be admitted; INF under recover_never. */
    public function getRetryAfter(): float
    {
        return $this->retryAfter;
    }
}

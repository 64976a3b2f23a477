<?php
declare(strict_types=1);

namespace Respite;

/**
 * What Backoff::run's $beforeSleep is told before each wait (spec B19): the attempt that
 * failed (1 = the first), the delay in seconds about to be waited (the schedule's, also under
 * Testing::setImmediateRetries), the failure's outcome and HTTP status (0: none), and the
 * Throwable thrown or the value returned (the other null).
 */
final class RetryEvent
{
    public function __construct(
        public readonly int $attempt,
        public readonly float $delay,
        public readonly Outcome $outcome,
        public readonly int $status,
        public readonly ?\Throwable $thrown,
        public readonly mixed $result,
    ) {
    }
}

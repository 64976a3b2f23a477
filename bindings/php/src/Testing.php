<?php
declare(strict_types=1);

namespace Respite;

/** Helpers for test suites, not production code. */
final class Testing
{
    /**
     * The core's testing switch (spec B17), process-wide: while on, every retry is immediate (the
     * same attempts, delays, decisions and $beforeSleep calls, no wait). Returns the previous
     * setting, to restore it after the test (stamina's set_testing).
     */
    public static function setImmediateRetries(bool $on): bool
    {
        $before = self::immediateRetries();
        respite_testing_set_immediate_retries($on ? 1 : 0);
        return $before;
    }

    /** Whether the testing switch is on. */
    public static function immediateRetries(): bool
    {
        return respite_testing_immediate_retries() === 1;
    }
}

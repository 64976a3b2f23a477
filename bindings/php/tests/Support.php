<?php
declare(strict_types=1);

namespace Respite\Tests;

/** A PSR-3-shaped logger that remembers what it was told. */
final class MemoryLogger
{
    /** @var list<array{0: string, 1: string, 2: array}> */
    public array $lines = [];

    public function warning(string $message, array $context = []): void
    {
        $this->lines[] = ['warning', $message, $context];
    }

    public function info(string $message, array $context = []): void
    {
        $this->lines[] = ['info', $message, $context];
    }
}

/** An HTTP error as client libraries throw them: it carries a response with a status. */
final class HttpError extends \RuntimeException
{
    public function __construct(private int $status, private ?float $retryAfter = null)
    {
        parent::__construct("HTTP $status");
    }

    public function getResponse(): object
    {
        $status = $this->status;
        return new class ($status) {
            public function __construct(private int $status)
            {
            }

            public function getStatusCode(): int
            {
                return $this->status;
            }
        };
    }

    public function getRetryAfter(): ?float
    {
        return $this->retryAfter;
    }
}

/**
 * The `name` setting of every component (issue 13, item 3) must be in the
 * core's table for a test of names in log lines: until it is, the test is
 * reported as incomplete (visibly), not failed.
 */
function needs_name_setting(string $component): void
{
    if (respite_setting_find($component, 'name') === null) {
        \PHPUnit\Framework\Assert::markTestIncomplete("the core's table has no $component setting 'name' yet");
    }
}

/** The status name and message the raw extension throws for a call. */
function raw_error(callable $fn): array
{
    try {
        $fn();
    } catch (\Respite\RespiteException $e) {
        return [$e->getStatus(), $e->getMessage()];
    }
    throw new \LogicException('the raw call did not fail');
}

<?php
declare(strict_types=1);

namespace Respite;

/** The delivery policy is not valid; getProblems() lists every problem. */
class InvalidPolicyException extends RespiteException
{
    public const STATUS = 'invalid_policy';

    /** @var list<Problem> */
    private array $problems;

    /** @param list<Problem> $problems */
    public function __construct(string $message, array $problems = [], ?\Throwable $previous = null)
    {
        parent::__construct($message, self::STATUS, $previous);
        $this->problems = $problems;
    }

    /** @return list<Problem> every problem, each with its JSON pointer */
    public function getProblems(): array
    {
        return $this->problems;
    }
}

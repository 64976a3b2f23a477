<?php
declare(strict_types=1);

namespace Respite;

/** The result of Gate::check(). */
final class Decision
{
    public function __construct(
        public readonly bool $allowed,
        /** Admitted as a probe (G7). */
        public readonly bool $probe,
        /** > 0 when admitted: report the outcome with it. */
        public readonly int $permit,
        /** Refused: seconds until a call may be admitted (INF under recover_never); 0 when allowed. */
        public readonly float $retryAfter,
    ) {
    }
}

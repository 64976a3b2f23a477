<?php
declare(strict_types=1);

namespace Respite;

/** One problem of a delivery policy: where (a JSON pointer) and what. */
final class Problem
{
    public function __construct(
        /** "" for the whole document, "/error_handlers/0/on", ... */
        public readonly string $pointer,
        public readonly string $message,
        /** For a syntax error, where the parser stopped; 0 otherwise. */
        public readonly int $line = 0,
        public readonly int $column = 0,
    ) {
    }

    public function __toString(): string
    {
        return $this->pointer === '' ? $this->message : $this->pointer . ': ' . $this->message;
    }
}

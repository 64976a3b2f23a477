<?php
declare(strict_types=1);

namespace Respite;

/**
 * Root of every error respite throws. The message is the core's, word for
 * word, so every language says the same; getStatus() is the core's stable
 * status name ("invalid_setting", "closed", ...) and getCode() its number.
 * One subclass per status of the core's table (see tools/generate-exceptions.php).
 */
class RespiteException extends \RuntimeException
{
    /** The core's status name this class stands for. */
    public const STATUS = 'internal';

    private string $status;

    public function __construct(string $message, ?string $status = null, ?\Throwable $previous = null)
    {
        $this->status = $status ?? static::STATUS;
        parent::__construct($message, Internal\Errors::code($this->status), $previous);
    }

    /** The core's status name ("invalid_setting", "temporarily_unavailable", ...). */
    public function getStatus(): string
    {
        return $this->status;
    }
}

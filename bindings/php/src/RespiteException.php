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
        $code = array_search($this->status, self::statusNames(), true);
        parent::__construct($message, $code === false ? RESPITE_E_INTERNAL : $code, $previous);
    }

    /** The core's status name ("invalid_setting", "temporarily_unavailable", ...). */
    public function getStatus(): string
    {
        return $this->status;
    }

    /**
     * The exception for a respite_error's fields (the extension throws
     * what this returns); each class takes the fields it carries.
     * @param list<Problem> $problems
     */
    public static function fromError(
        int $status,
        string $message,
        string $setting = '',
        float $retryAfter = NAN,
        array $problems = [],
    ): self {
        $name = self::statusNames()[$status] ?? 'unknown';
        $class = __NAMESPACE__ . '\\' . str_replace('_', '', ucwords($name, '_')) . 'Exception';
        return match ($status) {
            RESPITE_E_INVALID_SETTING => new InvalidSettingException($message, $setting),
            RESPITE_E_TEMPORARILY_UNAVAILABLE => new TemporarilyUnavailableException($message, $retryAfter),
            RESPITE_E_INVALID_POLICY => new InvalidPolicyException($message, $problems),
            default => $status > 0 && class_exists($class) ? new $class($message) : new self($message, $name),
        };
    }

    /** @return list<string> the core's status names in code order */
    private static function statusNames(): array
    {
        static $names = null;
        return $names ??= array_map('respite_status_name', range(0, respite_status_count() - 1));
    }
}

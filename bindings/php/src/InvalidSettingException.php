<?php
declare(strict_types=1);

namespace Respite;

/** A setting is unknown or its value is not accepted; getSetting() names it. */
class InvalidSettingException extends RespiteException
{
    public const STATUS = 'invalid_setting';

    private string $setting;

    public function __construct(string $message, ?string $setting = null, ?\Throwable $previous = null)
    {
        parent::__construct($message, self::STATUS, $previous);
        // The core guarantees the message starts with the setting's name.
        $this->setting = $setting ?? explode(' ', $message, 2)[0];
    }

    /** The setting's name, e.g. "failures_to_enter_recovery". */
    public function getSetting(): string
    {
        return $this->setting;
    }
}

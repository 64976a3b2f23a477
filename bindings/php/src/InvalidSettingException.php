<?php
declare(strict_types=1);

namespace Respite;

/** A setting is unknown or its value is not accepted; getSetting() names it. */
class InvalidSettingException extends RespiteException
{
    public const STATUS = 'invalid_setting';

    private string $setting;

    public function __construct(string $message, string $setting = '', ?\Throwable $previous = null)
    {
        parent::__construct($message, self::STATUS, $previous);
        $this->setting = $setting;
    }

    /** The setting's name, e.g. "failures_to_enter_recovery". */
    public function getSetting(): string
    {
        return $this->setting;
    }
}

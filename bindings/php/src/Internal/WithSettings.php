<?php
declare(strict_types=1);

namespace Respite\Internal;

use Respite\Settings;

/**
 * Makes a handle from settings by name: the raw settings are applied and
 * checked, lent to $make, and freed whatever happens.
 * @internal
 */
final class WithSettings
{
    /**
     * $make($raw) with the raw settings of $componentOrProfile; the raw
     * extension's errors come out as Respite\ exceptions.
     * @param array<string, mixed> $values settings by name
     */
    public static function make(string $componentOrProfile, array $values, callable $make): mixed
    {
        $raw = Settings::make($componentOrProfile, $values);
        try {
            return $make($raw);
        } catch (\Exception $e) {
            throw Errors::translate($e);
        } finally {
            respite_settings_free($raw);
        }
    }
}

<?php
declare(strict_types=1);

namespace Respite;

use Respite\Internal\Structs;

/**
 * Settings by the spec's names, as associative arrays:
 *   new Gate(['failures_to_enter_recovery' => 5, 'recovery_seconds' => 30])
 * The core checks every name, type and range and words every message, so a
 * bad value throws InvalidSettingException exactly as in every language.
 */
final class Settings
{
    private function __construct()
    {
    }

    /**
     * The rows of Tables::SETTINGS (of one component when given): component, name, type, default,
     * min, max, min_exclusive, max_exclusive (true: the bound itself is refused), choices, accepted, doc.
     * @return list<array<string, mixed>>
     */
    public static function table(?string $component = null): array
    {
        $rows = array_filter(Tables::SETTINGS, static fn (array $row): bool => $component === null
            || $row['component'] === $component);
        return array_values($rows);
    }

    /**
     * Checks $values for a component or profile ("gate", ..., "usage_sharing") as making an
     * object would: InvalidSettingException when the core refuses one.
     * @param array<string, mixed> $values
     */
    public static function check(string $componentOrProfile, array $values): void
    {
        self::with($componentOrProfile, $values, static fn () => null);
    }

    /** The default value of one setting of a component or profile (the core words unknown names). */
    public static function get(string $componentOrProfile, string $name): mixed
    {
        return self::with($componentOrProfile, [],
            static fn ($raw): mixed => Structs::setting($raw, (string) respite_settings_component($raw), $name));
    }

    /**
     * @internal $make($raw) with the raw settings of $componentOrProfile, $values applied (null:
     * no text, which the core refuses) and validated, freed whatever happens
     * @param array<string, mixed> $values
     */
    public static function with(string $componentOrProfile, array $values, callable $make): mixed
    {
        $raw = respite_settings_new($componentOrProfile);
        try {
            foreach ($values as $name => $value) {
                self::set($raw, (string) $name, $value);
            }
            respite_settings_validate($raw);
            return $make($raw);
        } finally {
            respite_settings_free($raw);
        }
    }

    /** @internal @return array<string, mixed> the value of every setting of $component in raw settings */
    public static function read($raw, string $component): array
    {
        $out = [];
        foreach (self::table($component) as $row) {
            $out[$row['name']] = Structs::setting($raw, $component, $row['name']);
        }
        return $out;
    }

    /** @param mixed $value */
    private static function set($raw, string $name, $value): void
    {
        if (is_bool($value)) {
            respite_settings_set_boolean($raw, $name, $value ? 1 : 0);
        } elseif (is_int($value)) {
            respite_settings_set_integer($raw, $name, $value);
        } elseif (is_float($value)) {
            respite_settings_set_number($raw, $name, $value);
        } elseif (is_string($value) || $value === null) {
            respite_settings_set_text($raw, $name, $value);
        } elseif (is_array($value)) {
            // 'retry_on' => ['transport', 503] is "transport,503"
            respite_settings_set_text($raw, $name, implode(',', array_map('strval', $value)));
        } else {
            throw new \TypeError(sprintf(
                '%s: a setting\'s value must be a bool, int, float, string or list (got %s)',
                $name,
                get_debug_type($value),
            ));
        }
    }
}

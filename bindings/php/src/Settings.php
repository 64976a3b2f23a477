<?php
declare(strict_types=1);

namespace Respite;

/**
 * Settings by the spec's names, as associative arrays:
 *   new Gate(['failures_to_enter_recovery' => 5, 'recovery_seconds' => 30])
 * The core checks every name, type and range and words every message, so a
 * bad value throws InvalidSettingException exactly as in every language.
 */
final class Settings
{
    private const TYPES = [
        RESPITE_SETTING_INTEGER => 'integer', RESPITE_SETTING_NUMBER => 'number',
        RESPITE_SETTING_BOOLEAN => 'boolean', RESPITE_SETTING_CHOICE => 'choice',
        RESPITE_SETTING_STRING => 'string', RESPITE_SETTING_LIST => 'list',
    ];

    private function __construct()
    {
    }

    /**
     * Every setting of the core's table (of one component when given):
     * component, name, type, default, min, max (null unless numeric),
     * min_exclusive, max_exclusive (true: the bound itself is refused),
     * accepted (as errors say it) and doc.
     * @return list<array{component: string, name: string, type: string, default: mixed, min: ?float,
     *                    max: ?float, min_exclusive: bool, max_exclusive: bool, accepted: string, doc: string}>
     */
    public static function table(?string $component = null): array
    {
        $out = [];
        for ($i = 0, $n = respite_setting_count(); $i < $n; $i++) {
            $row = respite_setting_at($i);
            if ($component !== null && $row->component !== $component) {
                continue;
            }
            $type = self::TYPES[$row->type] ?? 'unknown';
            $default = match ($type) {
                'integer' => (int) $row->default_number,
                'number' => (float) $row->default_number,
                'boolean' => $row->default_number != 0,
                default => $row->default_text,
            };
            $numeric = $type === 'integer' || $type === 'number';
            $out[] = [
                'component' => $row->component, 'name' => $row->name, 'type' => $type, 'default' => $default,
                'min' => $numeric ? $row->min : null, 'max' => $numeric ? $row->max : null,
                'min_exclusive' => $row->min_exclusive !== 0, 'max_exclusive' => $row->max_exclusive !== 0,
                'accepted' => $row->accepted, 'doc' => $row->doc,
            ];
        }
        return $out;
    }

    /**
     * Checks $values for a component or profile ("gate", "backoff",
     * "queue", "sender", "client", "cloud_request", "usage_sharing") the
     * way making an object would: InvalidSettingException when the core
     * refuses one.
     * @param array<string, mixed> $values
     */
    public static function check(string $componentOrProfile, array $values): void
    {
        respite_settings_free(self::make($componentOrProfile, $values));
    }

    /** The default value of one setting of a component or profile (the core words unknown names). */
    public static function get(string $componentOrProfile, string $name): mixed
    {
        return self::with($componentOrProfile, [], static function ($raw) use ($name): mixed {
            $info = respite_setting_find(respite_settings_component($raw), $name);
            $type = $info === null ? 'number' : (self::TYPES[$info->type] ?? 'number');
            return match ($type) {
                'integer' => (int) respite_settings_get_number($raw, $name),
                'boolean' => respite_settings_get_number($raw, $name) != 0,
                'choice', 'string', 'list' => respite_settings_get_text($raw, $name),
                default => respite_settings_get_number($raw, $name),
            };
        });
    }

    /**
     * Raw settings for a component or profile with $values applied (null
     * values mean "the default") and validated. The caller frees them.
     * @internal
     * @param array<string, mixed> $values
     */
    public static function make(string $componentOrProfile, array $values)
    {
        $raw = respite_settings_new($componentOrProfile);
        try {
            foreach ($values as $name => $value) {
                if ($value !== null) {
                    self::set($raw, (string) $name, $value);
                }
            }
            respite_settings_validate($raw);
        } catch (\Throwable $e) {
            respite_settings_free($raw);
            throw $e;
        }
        return $raw;
    }

    /**
     * $make($raw) with the raw settings of $componentOrProfile and $values,
     * freed whatever happens.
     * @internal
     * @param array<string, mixed> $values
     */
    public static function with(string $componentOrProfile, array $values, callable $make): mixed
    {
        $raw = self::make($componentOrProfile, $values);
        try {
            return $make($raw);
        } finally {
            respite_settings_free($raw);
        }
    }

    /**
     * The value of every setting of $component in raw settings.
     * @internal
     * @return array<string, mixed>
     */
    public static function read($raw, string $component): array
    {
        $out = [];
        foreach (self::table($component) as $info) {
            $name = $info['name'];
            $out[$name] = match ($info['type']) {
                'integer' => (int) respite_settings_get_number($raw, $name),
                'number' => respite_settings_get_number($raw, $name),
                'boolean' => respite_settings_get_number($raw, $name) != 0,
                default => respite_settings_get_text($raw, $name),
            };
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
        } elseif (is_string($value)) {
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

<?php
declare(strict_types=1);

namespace Respite\Internal;

/** @internal */
final class Fields
{
    /**
     * A raw struct's fields by name, in the core's order (SWIG gives each
     * a <field>_get method), so a field the core adds shows up by itself.
     * @return array<string, mixed>
     */
    public static function of(object $struct): array
    {
        $out = [];
        foreach (get_class_methods($struct) as $method) {
            if (preg_match('/^([a-z]\w*)_get$/', $method, $m) === 1) {
                $out[$m[1]] = $struct->$method();
            }
        }
        return $out;
    }
}

<?php
/*
 * The Respite\ classes without Composer: a PSR-4 autoloader for src/ (written
 * by hand) and generated/ (tools/gen: exception classes, enums, tables).
 * require this file once; the `respite` extension must be loaded
 * (php -d extension=/path/to/respite.so, or an extension= line in php.ini).
 */
declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'Respite\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $relative = str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    foreach (['/src/', '/generated/'] as $dir) {
        if (is_file(__DIR__ . $dir . $relative)) {
            require __DIR__ . $dir . $relative;
            return;
        }
    }
});

if (!function_exists('respite_gate_new')) {
    throw new \LogicException(
        'the respite extension is not loaded: add extension=/path/to/respite.so to php.ini '
        . 'or run php -d extension=/path/to/respite.so (install it: docs/php.md)'
    );
}

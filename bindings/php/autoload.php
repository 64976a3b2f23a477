<?php
/*
 * The Respite\ classes without Composer: a PSR-4 autoloader for src/.
 * require this file once; the `respite` extension must be loaded
 * (php -d extension=/path/to/respite.so, or an extension= line in php.ini).
 */
declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'Respite\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});

if (!function_exists('respite_gate_new')) {
    throw new \LogicException(
        'the respite extension is not loaded: add extension=/path/to/respite.so to php.ini '
        . 'or run php -d extension=/path/to/respite.so (build it with scripts/test.d/70-php.sh)'
    );
}

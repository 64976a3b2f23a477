<?php
declare(strict_types=1);

if (!extension_loaded('respite')) {
    fwrite(STDERR, "the respite extension is not loaded: run phpunit as "
        . "php -d extension=/abs/path/respite.so \$(command -v phpunit) (scripts/test.d/70-php.sh does)\n");
    exit(1);
}
// Gates without a logger write to error_log; keep the test output clean.
ini_set('error_log', sys_get_temp_dir() . '/respite-phpunit-error.log');
require __DIR__ . '/../autoload.php';
// The HTTP integrations' dependencies from Debian (scripts/setup.d/php.sh), with their own
// autoloaders on PHP's include_path (/usr/share/php), as Composer's would load them.
foreach (['Psr/Http/Client/autoload.php', 'GuzzleHttp/autoload.php', 'Nyholm/Psr7/autoload.php'] as $autoloader) {
    require_once $autoloader;
}
require __DIR__ . '/Support.php';
require __DIR__ . '/FaultServer.php';
require __DIR__ . '/UsesFaultServer.php';
require __DIR__ . '/PhpFpm.php';

<?php
declare(strict_types=1);

if (!extension_loaded('respite')) {
    fwrite(STDERR, "the respite extension is not loaded: run phpunit as "
        . "php -d extension=/abs/path/respite.so \$(command -v phpunit) (scripts/test.d/70-php.sh does)\n");
    exit(1);
}
require __DIR__ . '/../autoload.php';
require __DIR__ . '/Support.php';

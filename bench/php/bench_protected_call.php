<?php
/*
 * The cost of a protected no-op call in PHP: Gate::call() of the Respite\
 * API next to the bare call of the same closure, and the steps a caller
 * could do by hand (acquire + report), and a Client request the open gate
 * refuses (no network I/O: the URL is never contacted). Not a test.
 *
 *   php -d extension=$PWD/build/php/respite.so bench/php/bench_protected_call.php [iterations]
 *
 * Each figure is the best of 7 rounds (the machine is shared), in ns per call.
 */
declare(strict_types=1);

require __DIR__ . '/../../bindings/php/autoload.php';

use Respite\Client;
use Respite\Gate;
use Respite\TemporarilyUnavailableException;

$n = (int) ($argv[1] ?? 200000);
$rounds = 7;
$gate = new Gate();
$noop = static function (): int {
    return 1;
};

$cases = [
    'bare call $fn()' => static function () use ($n, $noop): void {
        for ($i = 0; $i < $n; $i++) {
            $noop();
        }
    },
    'Gate::call($fn)' => static function () use ($n, $noop, $gate): void {
        for ($i = 0; $i < $n; $i++) {
            $gate->call($noop);
        }
    },
    'acquire + $fn() + report' => static function () use ($n, $noop, $gate): void {
        for ($i = 0; $i < $n; $i++) {
            $permit = $gate->acquire();
            $noop();
            $gate->report(permit: $permit);
        }
    },
];

// A refused request builds and throws an exception: fewer calls, same unit.
$open = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 3600], logger: static fn () => null);
$open->report('transport');
$client = new Client([], $open);
$refusedCalls = max(1, intdiv($n, 20));
$cases['Client::get refused (open)'] = static function () use ($n, $refusedCalls, $client): void {
    for ($k = 0; $k < $n; $k += 20) {
        try {
            $client->get('http://127.0.0.1:9/');
        } catch (TemporarilyUnavailableException) {
        }
    }
};
$perCall = ['Client::get refused (open)' => $refusedCalls];

$best = [];
for ($r = 0; $r < $rounds; $r++) {
    foreach ($cases as $name => $run) {
        $t = hrtime(true);
        $run();
        $ns = (hrtime(true) - $t) / ($perCall[$name] ?? $n);
        $best[$name] = min($best[$name] ?? INF, $ns);
    }
}
printf("PHP %s, %d calls x %d rounds, best round:\n", PHP_VERSION, $n, $rounds);
foreach ($best as $name => $ns) {
    printf("  %-28s %8.1f ns/call\n", $name, $ns);
}
printf("  %-28s %8.1f ns/call\n", 'protection overhead', $best['Gate::call($fn)'] - $best['bare call $fn()']);
if ($open->stats()['admitted'] !== 0) {
    fwrite(STDERR, "the open gate must refuse every request\n");
    exit(1);
}
$stats = $gate->stats();
if ($stats['reported'] !== $stats['admitted']) {
    fwrite(STDERR, "every admitted call must be reported\n");
    exit(1);
}

<?php
/*
 * The cost of a protected no-op call in PHP: Gate::call() of the Respite\
 * API next to a minimal pure-PHP circuit breaker (the floor any PHP library
 * can reach) and the bare call of the same closure, plus acquire + report
 * by hand and a Client request the open gate refuses (no network I/O: the
 * URL is never contacted). Not a test.
 *
 *   php -d extension=$PWD/build/php/respite.so bench/php/bench_protected_call.php [calls] [rounds]
 *
 * Times are the process's CPU time (getrusage: user + system), so other
 * processes on a shared machine do not inflate them (as bench_gate's
 * per-thread CPU time in C).
 *
 * Paired rounds: every round runs every case once, in an order that
 * rotates from round to round; a case's overhead is its time above the
 * bare call's in the same round, and Gate::call's overhead is divided by
 * the pure-PHP breaker's per round (min / median / max of those ratios).
 * Target: at most 1.5.
 *
 * First, before any timing, the memory one breaker holds: the growth of
 * the process's resident memory (PHP's heap and native) while breakers are
 * made and kept, until it has grown by at least 16 MB.
 *
 * Lines starting with "result" and "memory" are what scripts/bench.sh
 * tabulates.
 */
declare(strict_types=1);

require __DIR__ . '/../../bindings/php/autoload.php';

use Respite\Client;
use Respite\Gate;
use Respite\TemporarilyUnavailableException;

/* The floor: a consecutive-failures breaker in 20 lines of plain PHP. */
final class PurePhpBreaker
{
    private int $failures = 0;
    private float $openUntil = 0.0;

    public function __construct(private int $threshold = 5, private float $pause = 60.0)
    {
    }

    public function call(callable $fn): mixed
    {
        if ($this->failures >= $this->threshold && microtime(true) < $this->openUntil) {
            throw new RuntimeException('open');
        }
        try {
            $result = $fn();
        } catch (Throwable $e) {
            if (++$this->failures >= $this->threshold) {
                $this->openUntil = microtime(true) + $this->pause;
            }
            throw $e;
        }
        $this->failures = 0;
        return $result;
    }
}

function resident(): int
{
    return (int) explode(" ", file_get_contents("/proc/self/statm"))[1] * 4096; // 4 KB pages (x86-64 Linux)
}

/* Resident bytes per object, made until the process grew by 16 MB (or
 * 200,000 of them), all kept alive while measured. */
function bytesPerObject(callable $make): array
{
    gc_collect_cycles();
    $before = resident();
    $kept = [];
    while (count($kept) < 200000) {
        for ($i = 0; $i < 500; $i++) {
            $kept[] = $make();
        }
        if (resident() - $before >= 16 << 20) {
            break;
        }
    }
    return [(resident() - $before) / count($kept), count($kept)];
}

echo "resident memory per breaker (made and kept until the process grew by 16 MB):\n";
foreach (['respite Gate' => static fn () => new Gate(), 'pure-PHP breaker' => static fn () => new PurePhpBreaker()] as $label => $make) {
    [$per, $count] = bytesPerObject($make);
    printf("  %-20s %9.0f bytes (%d made)\n", $label, $per, $count);
    printf("memory\tPHP\t%s\t%.0f\n", $label, $per);
}
echo "\n";

$n = (int) ($argv[1] ?? 200000);
$rounds = (int) ($argv[2] ?? 9);
$gate = new Gate();
$pure = new PurePhpBreaker();
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
    'pure-PHP breaker call($fn)' => static function () use ($n, $noop, $pure): void {
        for ($i = 0; $i < $n; $i++) {
            $pure->call($noop);
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
$cases['Client::get refused (open)'] = static function () use ($n, $client): void {
    for ($k = 0; $k < $n; $k += 20) {
        try {
            $client->get('http://127.0.0.1:9/');
        } catch (TemporarilyUnavailableException) {
        }
    }
};
$perCall = ['Client::get refused (open)' => $refusedCalls];

/* This process's CPU time in ns (getrusage counts microseconds: rounds of
 * 200,000 calls make that a rounding of 0.005 ns per call). */
function cpuNs(): int
{
    $r = getrusage();
    return ($r['ru_utime.tv_sec'] + $r['ru_stime.tv_sec']) * 1000000000
        + ($r['ru_utime.tv_usec'] + $r['ru_stime.tv_usec']) * 1000;
}

$names = array_keys($cases);
$ns = array_fill_keys($names, []);
for ($r = 0; $r < $rounds; $r++) {
    for ($k = 0; $k < count($names); $k++) {
        $name = $names[($r + $k) % count($names)];
        $t = cpuNs();
        $cases[$name]();
        $ns[$name][] = (cpuNs() - $t) / ($perCall[$name] ?? $n);
    }
}

function median(array $v): float
{
    sort($v);
    $m = intdiv(count($v), 2);
    return count($v) % 2 ? $v[$m] : ($v[$m - 1] + $v[$m]) / 2;
}

$overhead = static fn (string $name): array => array_map(
    static fn (float $x, float $bare): float => $x - $bare, $ns[$name], $ns['bare call $fn()']);
$ratio = array_map(static fn (float $o, float $p): float => $o / $p,
    $overhead('Gate::call($fn)'), $overhead('pure-PHP breaker call($fn)'));

printf("PHP %s, %d calls x %d paired rounds, order rotating, CPU time (medians):\n", PHP_VERSION, $n, $rounds);
foreach ($names as $name) {
    printf("  %-28s %8.1f ns/call\n", $name, median($ns[$name]));
}
$gateOver = median($overhead('Gate::call($fn)'));
$pureOver = median($overhead('pure-PHP breaker call($fn)'));
printf("  overhead: Gate::call %.1f ns, pure-PHP breaker %.1f ns; per-round ratio min %.2f, median %.2f, max %.2f\n",
    $gateOver, $pureOver, min($ratio), median($ratio), max($ratio));
printf("result\tPHP: Gate::call overhead <= 1.5x a 20-line pure-PHP breaker's\t%.0f ns vs %.0f ns: %.2fx median (min %.2f, max %.2f) of %d paired rounds\t%s\n",
    $gateOver, $pureOver, median($ratio), min($ratio), max($ratio), $rounds, median($ratio) <= 1.5 ? 'met' : 'NOT met');
if ($open->stats()['admitted'] !== 0) {
    fwrite(STDERR, "the open gate must refuse every request\n");
    exit(1);
}
$stats = $gate->stats();
if ($stats['reported'] !== $stats['admitted']) {
    fwrite(STDERR, "every admitted call must be reported\n");
    exit(1);
}

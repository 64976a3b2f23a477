<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\ClosedException;
use Respite\Gate;
use Respite\InvalidSettingException;
use Respite\TemporarilyUnavailableException;

/**
 * The fleet gate (spec section 11) against a real redis-server: hosts are
 * separate PHP processes (fleet_host.php) with distinct host ids; this
 * process is a third host that never fails.
 */
final class FleetGateTest extends TestCase
{
    private const REFRESH = 0.1;
    private RedisServer $redis;

    protected function setUp(): void
    {
        $this->redis = new RedisServer();
    }

    protected function tearDown(): void
    {
        $this->redis->kill();
    }

    private function fleetGate(string $hostId, ?MemoryLogger $logger = null): Gate
    {
        return new Gate(
            ['name' => 'billing', 'failures_to_enter_recovery' => 3, 'failures_window_seconds' => 10,
                'recovery_seconds' => 5],
            logger: $logger ?? new MemoryLogger(),
            fleet: ['fleet_url' => $this->redis->url, 'fleet_host_id' => $hostId, 'fleet_quorum' => 2,
                'fleet_refresh_seconds' => self::REFRESH],
        );
    }

    private static function waitFor(callable $condition): void
    {
        $until = microtime(true) + 5;
        while (!$condition()) {
            if (microtime(true) > $until) {
                throw new \RuntimeException('timed out');
            }
            usleep(10000);
        }
    }

    /** A host process whose gate has opened: [process, stdin, the time it opened]. */
    private function startHost(string $hostId): array
    {
        preg_match('#\S*/respite\.so$#m', (string) file_get_contents('/proc/self/maps'), $m);
        $this->assertNotEmpty($m, 'the loaded respite.so');
        $process = proc_open([PHP_BINARY, '-n', '-d', "extension={$m[0]}", __DIR__ . '/fleet_host.php',
            $this->redis->url, 'billing', $hostId], [0 => ['pipe', 'r'], 1 => ['pipe', 'w']], $pipes);
        $this->assertNotFalse($process);
        $line = fgets($pipes[1]);
        $this->assertNotFalse($line, "host $hostId exited before its gate opened");
        return [$process, $pipes[0], (float) $line];
    }

    private function stopHost(array $host): void
    {
        [$process, $stdin] = $host;
        fclose($stdin); // end of input: it closes its gate and exits
        $this->assertSame(0, proc_close($process));
    }

    public function testAQuorumOfTwoPausesAHostThatNeverFailed(): void
    {
        $logger = new MemoryLogger();
        $gate = $this->fleetGate('host-c', $logger);
        $calls = 0;
        $call = static function () use (&$calls): void {
            $calls++;
        };
        self::waitFor(static fn () => $gate->fleetView()['connected']);
        $one = $this->startHost('host-a');
        try {
            // one host's opening alone pauses no other host: looked at once this host has seen it
            self::waitFor(static fn () => $gate->fleetView()['hosts_opened'] === 1);
            for ($i = 0; $i < 5; $i++) {
                $gate->call($call);
            }
            $this->assertSame(5, $calls);
            $this->assertSame('closed', $gate->state());
            $this->assertSame([], array_filter($gate->takeEvents(), static fn ($e) => $e->type === 'fleet_paused'));
            $view = $gate->fleetView();
            $this->assertSame([false, 1, 'host-c'], [$view['paused'], $view['hosts_opened'], $view['host_id']]);

            $two = $this->startHost('host-b');
            try {
                $refusal = null;
                while (microtime(true) < $two[2] + 2) {
                    try {
                        $gate->call($call);
                    } catch (TemporarilyUnavailableException $e) {
                        $refusal = $e;
                        break;
                    }
                    usleep(2000);
                }
                $refused = microtime(true);
                $this->assertNotNull($refusal, "the fleet's pause never reached this host");
                $after = $refused - $two[2];
                $this->assertLessThanOrEqual(self::REFRESH + 0.1, $after, sprintf('refused %.1f ms after', $after * 1e3));
                $this->assertGreaterThan(4, $refusal->getRetryAfter());
                $this->assertLessThanOrEqual(5 + 4 * self::REFRESH + 0.1, $refusal->getRetryAfter());
                $paused = array_values(array_filter($gate->takeEvents(), static fn ($e) => $e->type === 'fleet_paused'));
                $this->assertCount(1, $paused);
                $this->assertSame(2, $paused[0]->count);
                $warnings = array_column(array_filter($logger->lines, static fn ($l) => $l[0] === 'warning'), 1);
                $this->assertCount(1, array_filter($warnings, static fn ($line) => str_starts_with(
                    $line,
                    "billing: fleet paused: 2 hosts' gates opened within 10s; requests paused for ",
                )), implode("\n", $warnings));
                $view = $gate->fleetView();
                $this->assertSame([true, 2, 1], [$view['paused'], $view['hosts_opened'], $view['epoch']]);
                $this->assertGreaterThan(4, $view['pause_left']);
                $this->assertLessThanOrEqual(5, $view['pause_left']);
                $count = $calls; // a refused call never runs: no network call
                try {
                    $gate->call($call);
                    $this->fail('admitted while the fleet is paused');
                } catch (TemporarilyUnavailableException) {
                }
                $this->assertSame($count, $calls);
            } finally {
                $this->stopHost($two);
            }
        } finally {
            $this->stopHost($one);
            $gate->close();
        }
    }

    public function testRedisKilledCallsGoOnLocallyThenTheHostRejoins(): void
    {
        $logger = new MemoryLogger();
        $gate = $this->fleetGate('host-c', $logger);
        self::waitFor(static fn () => $gate->fleetView()['connected']);
        $this->redis->kill();
        $until = microtime(true) + 3;
        $slowest = 0.0;
        $lost = [];
        while ($lost === []) {
            $this->assertLessThan($until, microtime(true), 'no fleet_store_lost event');
            $started = hrtime(true);
            $gate->report('success', $gate->acquire()); // admitted by the local gate
            $slowest = max($slowest, (hrtime(true) - $started) / 1e9);
            $lost = array_filter($gate->takeEvents(), static fn ($e) => $e->type === 'fleet_store_lost');
            usleep(10000);
        }
        $this->assertLessThan(self::REFRESH, $slowest); // a wait on Redis lasts fleet_refresh_seconds
        $view = $gate->fleetView();
        $this->assertFalse($view['connected']);
        $this->assertGreaterThanOrEqual(1, $view['failed_exchanges']);
        $this->assertContains(
            ['warning', 'billing: fleet store unreachable or slow: this host decides on its own gate'],
            array_map(static fn ($l) => [$l[0], $l[1]], $logger->lines),
        );
        // Alone, the local gate keeps its own rules: three failures open it.
        for ($i = 0; $i < 3; $i++) {
            $gate->report('server_error', $gate->acquire());
        }
        try {
            $gate->acquire();
            $this->fail('admitted after three failures');
        } catch (TemporarilyUnavailableException) {
        }

        $again = new RedisServer($this->redis->port); // Redis answers again (empty): the host rejoins the fleet
        try {
            $rejoined = [];
            self::waitFor(static function () use ($gate, &$rejoined): bool {
                $rejoined = [...$rejoined, ...array_filter($gate->takeEvents(), static fn ($e) => $e->type === 'fleet_rejoined')];
                return $rejoined !== [];
            });
            $this->assertContains(['info', 'billing: fleet store answers again: this host rejoined the fleet'],
                array_map(static fn ($l) => [$l[0], $l[1]], $logger->lines));
            $this->assertTrue($gate->fleetView()['connected']);
        } finally {
            $again->kill();
            $gate->close();
        }
    }

    public function testAClosedFleetGateIsTheCoresClosedError(): void
    {
        $gate = $this->fleetGate('host-c');
        $gate->report('success', $gate->acquire());
        $gate->close();
        $this->assertTrue($gate->isClosed());
        try {
            $gate->acquire();
            $this->fail('a closed gate admitted a call');
        } catch (ClosedException $e) {
            $this->assertSame('gate is closed', $e->getMessage());
        }
        try {
            $gate->fleetView();
            $this->fail('a closed fleet gate gave its view');
        } catch (ClosedException $e) {
            $this->assertSame('fleet gate is closed', $e->getMessage());
        }
        $gate->close(); // twice is no error
        $this->assertNull((new Gate())->fleetView(), 'not a fleet gate');
    }

    public function testBadFleetSettingsAreTheCoresErrors(): void
    {
        try {
            new Gate(['name' => 'billing'], fleet: ['fleet_url' => 'http://127.0.0.1:6379']);
            $this->fail('a bad fleet_url was accepted');
        } catch (InvalidSettingException $e) {
            $this->assertSame('fleet_url', $e->getSetting());
            $this->assertStringStartsWith('fleet_url must be redis://host:port or redis://host:port/db', $e->getMessage());
        }
        try {
            new Gate(fleet: ['fleet_url' => $this->redis->url]);
            $this->fail('an unnamed fleet gate was made');
        } catch (InvalidSettingException $e) {
            $this->assertSame('name', $e->getSetting());
            $this->assertStringStartsWith('name must not be empty for a fleet gate', $e->getMessage());
        }
    }
}

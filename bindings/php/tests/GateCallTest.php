<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Classifier;
use Respite\ClosedException;
use Respite\Engine;
use Respite\Gate;
use Respite\Policy;
use Respite\Queue;
use Respite\TemporarilyUnavailableException;
use Respite\TransportException;

/**
 * Gate::call is C (bindings/php/ext/gate_call.c, deciding the closed path by the fast-path
 * protocol, spec K1-K6): what it decides, checked against the PHP Gate::call it replaced over the
 * core alone, step by step.
 */
final class GateCallTest extends TestCase
{
    /** The PHP Gate::call that ext/gate_call.c replaced, kept as the reference. */
    private static function referenceCall(Gate $gate, callable $fn, ?Classifier $classifier): mixed
    {
        $permit = $gate->acquire(); // refused: the events are logged, then it throws
        try {
            $result = $fn();
        } catch (\Throwable $e) {
            [$outcome, , $hint] = ($classifier ?? $gate->classifier())->settle($e, null);
            $gate->reportCode($outcome->code(), $permit, $hint, null);
            throw $e;
        }
        [$outcome, , $hint] = ($classifier ?? $gate->classifier())->settle(null, $result);
        $gate->reportCode($outcome->code(), $permit, $hint, null);
        return $result;
    }

    /**
     * One scripted call on $gate: its name, classifier and $fn; some $fn let others act on the gate
     * between the admit and the report (its permit is then an earlier generation's: G6).
     * @return array{0: string, 1: ?Classifier, 2: callable}
     */
    private static function action(int $pick, Classifier $counting, Gate $gate): array
    {
        return match ($pick) {
            0, 10, 13, 14, 15 => ['scalar', null, fn () => 42],
            1 => ['null', null, fn () => null],
            2 => ['object', null, fn () => new \ArrayObject([1])],
            3 => ['503', null, fn () => throw new HttpError(503, 2.0)],
            4 => ['404', null, fn () => throw new HttpError(404)],
            5 => ['transport', null, fn () => throw new TransportException('reset')],
            6 => ['own', null, fn () => throw new \LogicException('bug')],
            7 => ['counted own', $counting, fn () => throw new \LogicException('bug')],
            8 => ['result 503', $counting, fn () => 503],
            9 => ['result ok', $counting, fn () => 200],
            11 => ['opened by others meanwhile', null, function () use ($gate) {
                for ($i = 0; $i < 3; $i++) {
                    $gate->report('transport');
                }
                return 42;
            }],
            12 => ['reset meanwhile', null, function () use ($gate) {
                $gate->reset();
                return 42;
            }],
        };
    }

    /** What one call did, seen from outside: its value or Throwable, the figures, the lines logged. */
    private static function outcome(Gate $gate, MemoryLogger $log, callable $call): array
    {
        try {
            $what = ['returned', $call()];
        } catch (TemporarilyUnavailableException $e) {
            // the core's text in both; the time left is read from the clock twice, so not compared
            $what = ['refused', preg_replace('/[0-9.]+(ms|s|m|h)\b/', 'N', $e->getMessage())];
        } catch (\Throwable $e) {
            $what = ['threw', $e::class, $e->getMessage()];
        }
        $lines = array_map(fn (array $line) => $line[0] . ' ' . $line[1], $log->lines);
        $log->lines = [];
        $stats = $gate->stats();
        $figures = ['admitted', 'refused', 'reported', 'counted_failures', 'late', 'trips', 'probes', 'generation',
            'window_failures', 'state'];
        return [$what, array_intersect_key($stats, array_flip($figures)), $lines];
    }

    /** @return array<string, array{0: array<string, mixed>}> gate settings the replay runs with */
    public static function replays(): array
    {
        $counts = ['failures_to_enter_recovery' => 3, 'failures_window_seconds' => 600];
        $short = $counts + ['recovery_seconds' => 0.002, 'honour_retry_after' => false];
        return [
            'paused for an hour, reset' => [$counts + ['recovery_seconds' => 3600]],
            // each opening waited out before the next call (a Retry-After hint would lengthen the pause):
            // probes, and (probes 0) G11's unconfirmed close
            'short pauses, probes 1' => [$short],
            'short pauses, probes 3' => [$short + ['probes' => 3]],
            'short pauses, probes 0' => [$short + ['probes' => 0]],
        ];
    }

    /**
     * K6: call() (the fast path, and the core where it must answer) gives the same values,
     * figures and lines as the PHP Gate::call over the core alone, step by step, with others
     * opening and resetting the gate between an admit and its report.
     * @dataProvider replays
     */
    public function testReplayAgainstThePhpGateCall(array $settings): void
    {
        $counting = Classifier::default()->count(\LogicException::class)->onResult(fn ($v) => is_int($v) ? $v : null);
        $short = $settings['recovery_seconds'] < 1;
        foreach ([1, 2, 3] as $seed) {
            mt_srand($seed);
            $cLog = new MemoryLogger();
            $refLog = new MemoryLogger();
            $c = new Gate($settings, logger: $cLog);
            $ref = new Gate($settings, logger: $refLog);
            $trips = 0;
            for ($step = 0; $step < 200; $step++) {
                $pick = mt_rand(0, 15);
                [$name, $classifier, $fn] = self::action($pick, $counting, $c);
                $got = self::outcome($c, $cLog, fn () => $c->call($fn, $classifier));
                [, , $refFn] = self::action($pick, $counting, $ref);
                $want = self::outcome($ref, $refLog, fn () => self::referenceCall($ref, $refFn, $classifier));
                $this->assertEquals($want, $got, "seed $seed, step $step: $name");
                if ($short && ($got[1]['state'] === 'open' || $got[1]['trips'] > $trips)) {
                    usleep(5000); // the pause (2 ms) is over for both before the next call
                } elseif (!$short && $step % 50 === 49) { // open for an hour: start again
                    $c->reset();
                    $ref->reset();
                }
                $trips = $got[1]['trips'];
            }
            $this->assertGreaterThan(0, $c->stats()['trips'], "seed $seed: the replay opened the gate");
            if ($short && ($settings['probes'] ?? 1) > 0) {
                $this->assertGreaterThan(0, $c->stats()['probes'], "seed $seed: probes admitted");
            }
            $this->assertGreaterThan(0, $c->stats()['late'], "seed $seed: permits of earlier generations reported");
            $this->assertGreaterThan(0, self::fastPathCounts($c)['reported'], "seed $seed: the fast path decided");
        }
    }

    /** @return array{admitted: int, reported: int}|null what call()'s fast path decided on $gate */
    private static function fastPathCounts(Gate $gate): ?array
    {
        return (new \ReflectionMethod($gate, 'fastPathCounts'))->invoke($gate);
    }

    public function testTheFastPathCountsEveryClosedCallAndNothingElse(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 3600]);
        $this->assertNull(self::fastPathCounts($gate), 'no block before the first call');
        for ($i = 0; $i < 5; $i++) {
            $gate->call(fn () => $i);
        }
        $gate->call(fn () => 1, Classifier::default()); // judged: reported by the core
        $this->assertSame(['admitted' => 6, 'reported' => 5], self::fastPathCounts($gate));
        $stats = $gate->stats();
        $this->assertSame([6, 6], [$stats['admitted'], $stats['reported']]);
        $gate->report('transport');
        try {
            $gate->call(fn () => 1);
            $this->fail('admitted while open');
        } catch (TemporarilyUnavailableException) {
        }
        $this->assertSame(['admitted' => 6, 'reported' => 5], self::fastPathCounts($gate));
        $this->assertSame(1, $gate->stats()['refused']);
    }

    /**
     * K1, K4 across handles: another handle on the same shared file (another PHP-FPM worker)
     * opens the gate between calls and during one; this handle's fast path sees it at once,
     * reports the call in flight as late, and logs the other handle's transition.
     */
    public function testAnotherHandleOnASharedFileOpensTheGate(): void
    {
        $path = tempnam(sys_get_temp_dir(), 'respite-gate-');
        unlink($path);
        $settings = ['shared_path' => $path, 'name' => 'fast-path-replay', 'failures_to_enter_recovery' => 2,
            'recovery_seconds' => 3600];
        $log = new MemoryLogger();
        $mine = new Gate($settings, logger: $log);
        $other = new Gate($settings, logger: static fn () => null);
        try {
            for ($i = 0; $i < 4; $i++) {
                $this->assertSame($i, $mine->call(fn () => $i));
            }
            $this->assertSame(['admitted' => 4, 'reported' => 4], self::fastPathCounts($mine));
            $this->assertSame(4, $other->stats()['admitted'], 'the block is in the shared totals');
            $this->assertSame('late', $mine->call(function () use ($other) {
                $other->report('transport');
                $other->report('transport');
                return 'late';
            }));
            $this->assertSame(1, $mine->stats()['late']);
            $this->assertStringContainsString('recovery started', end($log->lines)[1]);
            $called = false;
            try {
                $mine->call(function () use (&$called) {
                    $called = true;
                });
                $this->fail('admitted while the other handle opened the gate');
            } catch (TemporarilyUnavailableException) {
            }
            $this->assertFalse($called);
            $other->reset();
            $log->lines = [];
            $this->assertSame(7, $mine->call(fn () => 7));
            $this->assertNotSame([], $log->lines, 'the reset by the other handle is logged after the call');
            $stats = $mine->stats(); // the file's totals: the other handle's two reports too
            $this->assertSame([6, 1, 8], [$stats['admitted'], $stats['refused'], $stats['reported']]);
        } finally {
            $mine->close();
            $other->close();
            @unlink($path);
        }
    }

    /** An engine sharing the gate: its failed delivery opens the gate that call() reads. */
    public function testAnEngineSharingTheGateStopsCallAtOnce(): void
    {
        $log = new MemoryLogger();
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 3600], logger: $log);
        $queue = new Queue(Policy::default());
        $engine = new Engine($queue, $gate, ['min_entries_per_message' => 1, 'max_entries_per_message' => 1]);
        try {
            for ($i = 0; $i < 3; $i++) {
                $gate->call(fn () => $i);
            }
            $queue->enqueue('e1');
            $this->assertSame('send', $engine->next());
            $engine->take();
            $engine->settle(503);
            $called = false;
            try {
                $gate->call(function () use (&$called) {
                    $called = true;
                });
                $this->fail('admitted after the engine opened the gate');
            } catch (TemporarilyUnavailableException) {
            }
            $this->assertFalse($called);
            $stats = $gate->stats();
            $this->assertSame([4, 1, 4, 1, 'open'],
                [$stats['admitted'], $stats['refused'], $stats['reported'], $stats['trips'], $stats['state']]);
            $this->assertStringContainsString('recovery started', $log->lines[0][1]);
        } finally {
            $engine->close();
            $queue->close();
            $gate->close();
        }
    }

    public function testAnyCallableIsCalled(): void
    {
        $gate = new Gate();
        $invokable = new class {
            public function __invoke(): string
            {
                return 'invoked';
            }

            public function method(): string
            {
                return 'method';
            }

            public static function named(): string
            {
                return 'static';
            }
        };
        $this->assertSame('invoked', $gate->call($invokable));
        $this->assertSame('method', $gate->call([$invokable, 'method']));
        $this->assertSame('static', $gate->call([$invokable::class, 'named']));
        $this->assertSame('static', $gate->call($invokable::class . '::named'));
        $this->assertSame('method', $gate->call($invokable->method(...)));
        $this->assertIsString($gate->call('microtime', null));
        $this->assertSame(6, $gate->stats()['reported']);
    }

    public function testTheThrowableLeavesUnchangedAndTheBlockIsReported(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1]);
        $error = new HttpError(503);
        try {
            $gate->call(fn () => throw $error);
            $this->fail('not rethrown');
        } catch (HttpError $e) {
            $this->assertSame($error, $e);
            $this->assertNull($e->getPrevious());
        }
        $this->assertSame('open', $gate->state());
        $this->assertSame(1, $gate->stats()['reported']);
    }

    public function testAClassifierThatThrowsWinsOverTheCallsThrowable(): void
    {
        $judge = Classifier::default()->onThrowable(fn (\Throwable $e) => throw new \DomainException('judge failed'));
        $gate = new Gate(classifier: $judge);
        try {
            $gate->call(fn () => throw new \LogicException('the call failed'));
            $this->fail('nothing thrown');
        } catch (\DomainException $e) {
            $this->assertSame('judge failed', $e->getMessage());
        }
        $this->assertSame(0, $gate->stats()['reported']);
        $this->assertSame(1, $gate->stats()['admitted']);
    }

    public function testALoggerThatThrowsWhileTheFailureIsReportedWins(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 3600], logger: function (string $level, string $message) {
            throw new \RuntimeException("logger: $message");
        });
        try {
            $gate->call(fn () => throw new TransportException('down'));
            $this->fail('nothing thrown');
        } catch (\RuntimeException $e) {
            $this->assertStringStartsWith('logger: recovery started', $e->getMessage());
        }
        $this->assertSame(1, $gate->stats()['reported']);
        $this->assertSame('open', $gate->state());
    }

    public function testEventsPendingAfterASuccessAreLogged(): void
    {
        $log = new MemoryLogger();
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 0.01], logger: $log);
        try {
            $gate->call(fn () => throw new TransportException('down'));
        } catch (TransportException) {
        }
        usleep(30000);
        $log->lines = [];
        $this->assertSame('probe', $gate->call(fn () => 'probe')); // the probe's success closes the gate
        $this->assertSame('closed', $gate->state());
        $this->assertNotSame([], $log->lines);
        $this->assertStringContainsString('recovered', end($log->lines)[1]);
    }

    public function testAClosedGateOrOneClosedInsideThrowsClosed(): void
    {
        $gate = new Gate();
        $result = null;
        try {
            $result = $gate->call(function () use ($gate) {
                $gate->close();
                return 'done';
            });
            $this->fail('no ClosedException');
        } catch (ClosedException $e) {
            $this->assertSame('gate is closed', $e->getMessage());
        }
        $this->assertNull($result);
        $called = false;
        $this->expectException(ClosedException::class);
        try {
            $gate->call(function () use (&$called) {
                $called = true;
            });
        } finally {
            $this->assertFalse($called);
        }
    }

    public function testBadArgumentsAreTypeErrorsBeforeAnyAdmit(): void
    {
        $gate = new Gate();
        foreach ([fn () => $gate->call('no such function'), fn () => $gate->call(fn () => 1, new \stdClass())] as $k => $bad) {
            try {
                $bad();
                $this->fail("bad argument $k taken");
            } catch (\TypeError $e) {
                $this->assertStringStartsWith('Respite\\Internal\\NativeGate::call(): Argument #' . ($k + 1), $e->getMessage());
            }
        }
        $this->assertSame(0, $gate->stats()['admitted']);
    }

    public function testAGateNeverConstructedIsClosedAndOneCannotBeCloned(): void
    {
        $bare = (new \ReflectionClass(Gate::class))->newInstanceWithoutConstructor();
        try {
            $bare->call(fn () => 1);
            $this->fail('a gate without a handle called');
        } catch (ClosedException $e) {
            $this->assertSame('gate is closed', $e->getMessage());
        }
        $this->expectException(\Error::class); // two objects would free one handle twice
        $copy = clone new Gate();
    }
}

<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Classifier;
use Respite\ClosedException;
use Respite\Gate;
use Respite\TemporarilyUnavailableException;
use Respite\TransportException;

/**
 * Gate::call is C (bindings/php/ext/gate_call.c): what the C path decides, checked against the
 * PHP Gate::call it replaced, step by step.
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

    /** @return array{0: string, 1: ?Classifier, 2: callable} one scripted call: its name, classifier and $fn */
    private static function action(int $pick, Classifier $counting): array
    {
        return match ($pick) {
            0 => ['scalar', null, fn () => 42],
            1 => ['null', null, fn () => null],
            2 => ['object', null, fn () => new \ArrayObject([1])],
            3 => ['503', null, fn () => throw new HttpError(503, 2.0)],
            4 => ['404', null, fn () => throw new HttpError(404)],
            5 => ['transport', null, fn () => throw new TransportException('reset')],
            6 => ['own', null, fn () => throw new \LogicException('bug')],
            7 => ['counted own', $counting, fn () => throw new \LogicException('bug')],
            8 => ['result 503', $counting, fn () => 503],
            9 => ['result ok', $counting, fn () => 200],
        };
    }

    /** What one call did, seen from outside: its value or Throwable, the stats, the lines logged. */
    private static function outcome(Gate $gate, MemoryLogger $log, callable $call): array
    {
        try {
            $what = ['returned', $call()];
        } catch (TemporarilyUnavailableException $e) {
            $what = ['refused', $e->getMessage()];
        } catch (\Throwable $e) {
            $what = ['threw', $e::class, $e->getMessage()];
        }
        $lines = array_map(fn (array $line) => $line[0] . ' ' . $line[1], $log->lines);
        $log->lines = [];
        $stats = $gate->stats();
        return [$what, $stats['admitted'], $stats['refused'], $stats['reported'], $stats['counted_failures'],
            $stats['trips'], $lines];
    }

    public function testReplayAgainstThePhpGateCall(): void
    {
        $counting = Classifier::default()->count(\LogicException::class)->onResult(fn ($v) => is_int($v) ? $v : null);
        foreach ([1, 2, 3] as $seed) {
            mt_srand($seed);
            $settings = ['failures_to_enter_recovery' => 3, 'failures_window_seconds' => 600, 'recovery_seconds' => 3600];
            $cLog = new MemoryLogger();
            $refLog = new MemoryLogger();
            $c = new Gate($settings, logger: $cLog);
            $ref = new Gate($settings, logger: $refLog);
            for ($step = 0; $step < 200; $step++) {
                [$name, $classifier, $fn] = self::action(mt_rand(0, 9), $counting);
                $got = self::outcome($c, $cLog, fn () => $c->call($fn, $classifier));
                $want = self::outcome($ref, $refLog, fn () => self::referenceCall($ref, $fn, $classifier));
                $this->assertEquals($want, $got, "seed $seed, step $step: $name");
                if ($step % 50 === 49) { // open for an hour: start again
                    $c->reset();
                    $ref->reset();
                }
            }
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

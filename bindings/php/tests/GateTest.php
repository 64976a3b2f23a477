<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Classifier;
use Respite\ClosedException;
use Respite\Gate;
use Respite\InvalidArgumentException;
use Respite\InvalidTimeException;
use Respite\Outcome;
use Respite\TemporarilyUnavailableException;
use Respite\TransportException;

final class GateTest extends TestCase
{
    private function tripped(MemoryLogger $log = null): Gate
    {
        $gate = new Gate(['failures_to_enter_recovery' => 2, 'recovery_seconds' => 10, 'failures_window_seconds' => 60],
            logger: $log ?? new MemoryLogger());
        $gate->report('transport', now: 1.0);
        $gate->report(Outcome::ServerError, now: 2.0);
        return $gate;
    }

    public function testTripsAndRefusesWithRetryAfter(): void
    {
        $gate = $this->tripped();
        $this->assertSame('open', $gate->state(3.0));
        $d = $gate->check(3.0);
        $this->assertFalse($d->allowed);
        $this->assertSame(9.0, $d->retryAfter);
        try {
            $gate->acquire(5.0);
            $this->fail('admitted');
        } catch (TemporarilyUnavailableException $e) {
            $this->assertSame(7.0, $e->getRetryAfter());
            $this->assertSame(respite_refusal_message(7.0), $e->getMessage());
            $this->assertSame('temporarily_unavailable', $e->getStatus());
        }
        $this->assertSame(2, $gate->stats()['refused']);
    }

    public function testProbeRecovers(): void
    {
        $log = new MemoryLogger();
        $gate = $this->tripped($log);
        $permit = $gate->acquire(12.5);
        $this->assertGreaterThan(0, $permit);
        $gate->report(permit: $permit, now: 12.6);
        $this->assertSame('closed', $gate->state(13.0));
        $types = array_map(fn ($e) => $e->type, $gate->takeEvents());
        $this->assertSame(['recovery_started', 'probing', 'recovered'], $types);
        $this->assertSame([], $gate->takeEvents());
        $levels = array_map(fn ($l) => $l[0], $log->lines);
        $this->assertSame(['warning', 'info', 'info'], $levels);
        $this->assertSame([
            'recovery started: 2 failures within 60s; requests paused for 10s',
            'recovery period ended: the next request is a probe',
            'recovered: the service answered; requests resume',
        ], array_map(fn ($l) => $l[1], $log->lines));
        $this->assertSame('recovery_started', $log->lines[0][2]['respite_event']['type']);
    }

    public function testARecoverNeverPauseLogsUntilAReset(): void
    {
        $log = new MemoryLogger();
        $gate = new Gate(['failures_to_enter_recovery' => 2, 'recovery_seconds' => 5, 'recover_never' => true],
            logger: $log);
        $gate->report('transport', now: 1.0);
        $gate->report('transport', now: 2.0);
        $gate->reset(3.0);
        $this->assertSame([
            ['warning', 'recovery started: 2 failures within 100s; requests paused until a reset'],
            ['info', 'gate reset: requests resume'],
        ], array_map(fn ($l) => [$l[0], $l[1]], $log->lines));
        $event = $gate->takeEvents()[0];
        $this->assertSame('recovery started: 2 failures within 100s; requests paused until a reset', $event->message);
        $this->assertSame('', $event->source);
        $this->assertSame('', $gate->name());
    }

    /** The name is the core's setting; the core writes it into the line, which reaches the logger unchanged. */
    public function testTheNameStartsEveryLine(): void
    {
        needs_name_setting('gate');
        $log = new MemoryLogger();
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'name' => 'ledger'], logger: $log);
        $gate->report('transport', now: 1.0);
        $this->assertSame('ledger: recovery started: 1 failure within 100s; requests paused for 60s', $log->lines[0][1]);
        $this->assertSame('ledger', $gate->takeEvents()[0]->source);
        $this->assertSame('ledger', $gate->name());
        $this->assertSame('ledger', $gate->settings()['name']);
        $this->assertSame('billing', (new Gate(name: 'billing'))->name());
    }

    public function testRequestErrorsDoNotCount(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1]);
        $this->assertSame(Outcome::RequestError, $gate->reportStatus(404, now: 1.0));
        $this->assertSame('closed', $gate->state(1.0));
        $this->assertSame(Outcome::ServerError, $gate->reportStatus(503, now: 2.0));
        $this->assertSame('open', $gate->state(2.0));
    }

    public function testCallReportsSuccessAndReturnsTheValue(): void
    {
        $gate = new Gate();
        $this->assertSame(42, $gate->call(fn () => 42));
        $this->assertSame('ab', $gate->protect(fn ($a, $b) => $a . $b)('a', 'b'));
        $this->assertSame(2, $gate->stats()['reported']);
        $this->assertSame(2, $gate->stats()['admitted']);
    }

    public function testCallRethrowsTheCallersOwnThrowableUncounted(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1]);
        $own = new \RuntimeException('undefined index');
        for ($i = 0; $i < 3; $i++) {
            try {
                $gate->call(fn () => throw $own);
                $this->fail('not rethrown');
            } catch (\RuntimeException $e) {
                $this->assertSame($own, $e);
            }
        }
        $this->assertSame(0, $gate->stats()['counted_failures']);
        $this->assertSame(3, $gate->stats()['reported']);
        $this->assertSame('closed', $gate->state());
        $this->assertSame(Outcome::RequestError, $gate->reportThrowable($own));
    }

    public function testCallCountsWhatItsClassifierCountsAndRethrowsIt(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 2], classifier: Classifier::default()->count(\RuntimeException::class));
        $boom = new \RuntimeException('connection refused');
        foreach ([1, 2] as $_) {
            try {
                $gate->call(function () use ($boom) {
                    throw $boom;
                });
                $this->fail('not rethrown');
            } catch (\RuntimeException $e) {
                $this->assertSame($boom, $e);
            }
        }
        $this->assertSame(2, $gate->stats()['counted_failures']);
        $called = false;
        try {
            $gate->call(function () use (&$called) {
                $called = true;
            });
            $this->fail('admitted while open');
        } catch (TemporarilyUnavailableException $e) {
            $this->assertFalse($called);
            $this->assertGreaterThan(0, $e->getRetryAfter());
            $this->assertSame(respite_refusal_message($e->getRetryAfter()), $e->getMessage());
        }
    }

    public function testCallClassifiesAnHttpErrorByItsStatus(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1]);
        try {
            $gate->call(fn () => throw new HttpError(404));
        } catch (HttpError) {
        }
        $this->assertSame(0, $gate->stats()['counted_failures']);
        $this->assertSame([Outcome::Throttled, 429, 3.0], Outcome::ofThrowable(new HttpError(429, 3.0)));
        try {
            $gate->call(fn () => throw new HttpError(503));
        } catch (HttpError) {
        }
        $this->assertSame(1, $gate->stats()['counted_failures']);
    }

    public function testNestedCallsReportTheirOwnPermits(): void
    {
        $outer = new Gate();
        $inner = new Gate(['failures_to_enter_recovery' => 1]);
        try {
            $outer->call(function () use ($inner) {
                try {
                    $inner->call(fn () => throw new TransportException('inner'));
                } catch (TransportException) {
                }
                throw new TransportException('outer');
            });
        } catch (TransportException $e) {
            $this->assertSame('outer', $e->getMessage());
        }
        $this->assertSame(0, $outer->stats()['late']);
        $this->assertSame(1, $outer->stats()['counted_failures']);
        $this->assertSame('open', $inner->state());
    }

    public function testCallableLogger(): void
    {
        $seen = [];
        $gate = new Gate(['failures_to_enter_recovery' => 1], logger: function (string $level, string $message) use (&$seen) {
            $seen[] = [$level, $message];
        });
        $gate->report('transport', now: 1.0);
        $this->assertSame('warning', $seen[0][0]);
        $this->assertSame('recovery started: 1 failure within 100s; requests paused for 60s', $seen[0][1]);
    }

    public function testErrorLogByDefault(): void
    {
        $file = tempnam(sys_get_temp_dir(), 'respite');
        $old = ini_set('error_log', $file);
        try {
            $gate = new Gate(['failures_to_enter_recovery' => 1]);
            $gate->report('transport', now: 1.0);
        } finally {
            ini_set('error_log', (string) $old);
        }
        $this->assertStringContainsString('recovery started: 1 failure within 100s; requests paused for 60s',
            (string) file_get_contents($file));
        unlink($file);
    }

    public function testBadLoggerIsATypeError(): void
    {
        $this->expectException(\TypeError::class);
        new Gate(logger: 'not a logger');
    }

    public function testClosedGateThrowsNeverCrashes(): void
    {
        $gate = new Gate();
        $gate->close();
        $gate->close();
        $this->assertTrue($gate->isClosed());
        $calls = [
            fn () => $gate->acquire(), fn () => $gate->check(), fn () => $gate->report(),
            fn () => $gate->call(fn () => 1), fn () => $gate->state(), fn () => $gate->stats(),
            fn () => $gate->reset(), fn () => $gate->retryAfter(), fn () => $gate->takeEvents(),
        ];
        foreach ($calls as $i => $call) {
            try {
                $call();
                $this->fail("call $i did not throw");
            } catch (ClosedException $e) {
                $this->assertSame('gate is closed', $e->getMessage());
            }
        }
    }

    public function testClosingTheGateInsideCall(): void
    {
        $gate = new Gate();
        $this->expectException(ClosedException::class);
        $gate->call(fn () => $gate->close());
    }

    public function testBadInputIsTheCoresError(): void
    {
        $gate = new Gate();
        try {
            $gate->check(-1.0);
            $this->fail('negative time accepted');
        } catch (InvalidTimeException $e) {
            [, $expected] = raw_error(fn () => respite_gate_admit($gate->raw(), -1.0));
            $this->assertSame($expected, $e->getMessage());
        }
        $this->expectException(InvalidArgumentException::class);
        $gate->report('sideways');
    }

    public function testResetClosesTheGate(): void
    {
        $gate = $this->tripped();
        $gate->reset(3.0);
        $this->assertSame('closed', $gate->state(3.0));
        $this->assertSame('reset', array_slice($gate->takeEvents(), -1)[0]->type);
    }

    public function testProtect(): void
    {
        $gate = new Gate();
        $double = $gate->protect(fn (int $x) => 2 * $x);
        $this->assertSame(8, $double(4));
        $this->assertSame(1, $gate->stats()['reported']);
    }
}

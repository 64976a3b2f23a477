<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Backoff;
use Respite\Classifier;
use Respite\Decorators;
use Respite\Gate;
use Respite\TemporarilyUnavailableException;
use Respite\TransportException;

/** Retry + gate + fallback composed (issue 20, item 3). */
final class DecoratorsTest extends TestCase
{
    /** @var list<float> */
    private array $slept = [];

    private function backoff(int $attempts = 3): Backoff
    {
        return new Backoff(['max_attempts' => $attempts, 'initial_delay_seconds' => 0.5]);
    }

    private function sleep(): \Closure
    {
        return function (float $s): void {
            $this->slept[] = $s;
        };
    }

    public function testRetriesThroughTheGateAndPassesArguments(): void
    {
        $gate = new Gate(logger: new MemoryLogger());
        $calls = 0;
        $fetch = Decorators::of(function (string $id, int $n) use (&$calls): string {
            if (++$calls < 3) {
                throw new TransportException('connection reset');
            }
            return "$id:$n";
        })->withGate($gate)->withRetry($this->backoff(), $this->sleep())->decorate();
        $this->assertSame('a:1', $fetch('a', 1));
        $this->assertSame([3, [0.5, 1.0]], [$calls, $this->slept]);
        $this->assertSame([3, 2], [$gate->stats()['admitted'], $gate->stats()['counted_failures']]);
    }

    public function testTheFallbackAnswersForARefusalWithoutCallingTheFunction(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 30], logger: new MemoryLogger());
        $calls = 0;
        $decorated = Decorators::of(function () use (&$calls): string {
            $calls++;
            throw new TransportException('down');
        })->withGate($gate)->withRetry($this->backoff(), $this->sleep())
            ->withFallback(fn (TemporarilyUnavailableException $e) => sprintf('cached (%.0fs)', $e->getRetryAfter()),
                TemporarilyUnavailableException::class);
        // the first attempt fails and opens the gate, the retry after the first delay is refused (B12): the fallback answers
        $this->assertSame('cached (30s)', $decorated->call());
        $this->assertSame([1, [0.5]], [$calls, $this->slept]);
        $this->assertSame('cached (30s)', $decorated->call());
        $this->assertSame(1, $calls);
    }

    public function testTheFallbackAnswersOnlyForItsTypes(): void
    {
        $gave = Decorators::of(fn () => throw new TransportException('reset'))
            ->withRetry($this->backoff(2), $this->sleep())->withFallback('default');
        $this->assertSame('default', $gave->call()); // the give-up is an \Exception
        $own = Decorators::of(fn () => throw new \LogicException('bug'))
            ->withRetry($this->backoff(), $this->sleep())->withFallback('default', TemporarilyUnavailableException::class);
        try {
            $own->call();
            $this->fail('the fallback answered for another type');
        } catch (\LogicException $e) {
            $this->assertSame('bug', $e->getMessage());
        }
        $this->assertSame([0.5], $this->slept); // the caller's own error was not retried
        try {
            Decorators::of(fn () => throw new \TypeError('bad'))->withFallback('default')->call();
            $this->fail('the default fallback answered for an \Error');
        } catch (\TypeError) {
        }
        $this->expectException(\TypeError::class);
        $this->expectExceptionMessage("Decorators::withFallback() takes names of Throwable classes or interfaces (got 'stdClass')");
        Decorators::of(fn () => 1)->withFallback(0, \stdClass::class);
    }

    public function testAClassifierDecidesWhatCountsAndIsRetried(): void
    {
        $gate = new Gate(logger: new MemoryLogger());
        $calls = 0;
        $base = Decorators::of(function () use (&$calls) {
            $calls++;
            throw new \PDOException('server has gone away');
        })->withGate($gate)->withRetry($this->backoff(), $this->sleep());
        try {
            $base->call();
        } catch (\PDOException) {
        }
        $this->assertSame([1, 0], [$calls, $gate->stats()['counted_failures']]);
        try {
            $base->withClassifier(Classifier::default()->count(\PDOException::class))->call();
        } catch (TransportException $gaveUp) {
            $this->assertInstanceOf(\PDOException::class, $gaveUp->getPrevious());
        }
        $this->assertSame([4, 3], [$calls, $gate->stats()['counted_failures']]);
        // builders are immutable: $base still has the default
        try {
            $base->call();
        } catch (\PDOException) {
        }
        $this->assertSame(5, $calls);
    }

    public function testGateOnlyAndNothingAtAll(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1], logger: new MemoryLogger());
        $this->assertSame(6, Decorators::of(fn (int $x) => 2 * $x)->withGate($gate)->call(3));
        $this->assertSame(1, $gate->stats()['admitted']);
        $this->assertSame(4, Decorators::of(fn (int $x) => $x + 1)->call(3));
    }
}

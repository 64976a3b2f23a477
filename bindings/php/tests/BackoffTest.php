<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Backoff;
use Respite\Gate;
use Respite\InvalidSettingException;
use Respite\Outcome;
use Respite\RetryEvent;
use Respite\Testing;
use Respite\TransportException;

/** Retry (issue 20 item 4): max_elapsed_seconds (B16), the testing switch (B17), the hook before each wait (B19). */
final class BackoffTest extends TestCase
{
    private static function failing(int &$calls): \Closure
    {
        return function () use (&$calls): never {
            $calls++;
            throw new TransportException('connection reset');
        };
    }

    public function testMaxElapsedSecondsStopsBeforeAWaitPastTheLimit(): void
    {
        // waits of 30 ms against 50 ms: the second wait would end past it
        $backoff = new Backoff(['max_attempts' => 10, 'initial_delay_seconds' => 0.03, 'multiplier' => 1,
            'max_elapsed_seconds' => 0.05]);
        $calls = 0;
        try {
            $backoff->run(self::failing($calls));
            $this->fail('no give-up');
        } catch (TransportException $e) {
            $this->assertSame('the call failed after 2 attempts: the next would start past max_elapsed_seconds '
                . '(0.05); last outcome transport', $e->getMessage());
        }
        $this->assertSame(2, $calls);
        try {
            new Backoff(['max_elapsed_seconds' => -1]);
            $this->fail('accepted');
        } catch (InvalidSettingException $e) {
            $this->assertSame('max_elapsed_seconds must be a number from 0 to 86400 (got -1)', $e->getMessage());
        }
    }

    public function testImmediateRetriesMakeFiveAttemptsWithOneSecondDelaysFast(): void
    {
        $backoff = new Backoff(['max_attempts' => 5, 'initial_delay_seconds' => 1, 'multiplier' => 1]);
        $delays = [];
        $calls = 0;
        $before = Testing::setImmediateRetries(true);
        $started = hrtime(true);
        try {
            $backoff->run(self::failing($calls), beforeSleep: function (RetryEvent $e) use (&$delays): void {
                $delays[] = $e->delay;
            });
            $this->fail('no give-up');
        } catch (TransportException $e) {
            $this->assertSame('the call failed after 5 attempts: last outcome transport', $e->getMessage());
        } finally {
            $this->assertTrue(Testing::setImmediateRetries($before));
        }
        $this->assertLessThan(1e9, hrtime(true) - $started); // none of the 1 s delays waited
        $this->assertSame([5, [1.0, 1.0, 1.0, 1.0]], [$calls, $delays]);
        $this->assertFalse(Testing::immediateRetries());
    }

    public function testGivingUpOnAReturnedAnswerThrowsTheGiveUpCarryingIt(): void
    {
        // B20: as after a thrown failure, never the failed answer returned
        $backoff = new Backoff(['max_attempts' => 2, 'initial_delay_seconds' => 0.001]);
        $calls = 0;
        $answer = static function () use (&$calls): int {
            $calls++;
            return 503;
        };
        try {
            $backoff->run($answer, statusOf: static fn (int $status): int => $status);
            $this->fail('no give-up');
        } catch (TransportException $e) {
            $this->assertSame('the call failed after 2 attempts: last outcome server_error (status 503)', $e->getMessage());
            $this->assertSame(503, $e->getResult());
            $this->assertNull($e->getPrevious());
        }
        $this->assertSame(2, $calls);
        try {
            $backoff->run(self::failing($calls));
            $this->fail('no give-up');
        } catch (TransportException $e) {
            $this->assertNull($e->getResult()); // it threw: the throwable is getPrevious()
            $this->assertSame('connection reset', $e->getPrevious()?->getMessage());
        }
    }

    public function testBeforeSleepSeesEachFailureAndWhatItThrowsEndsTheCall(): void
    {
        $backoff = new Backoff(['max_attempts' => 4, 'initial_delay_seconds' => 0.5]);
        $events = [];
        $slept = [];
        $busy = new TransportException('reset');
        $answers = [$busy, 429, 200];
        $result = $backoff->run(
            function () use (&$answers): int {
                $answer = array_shift($answers);
                if ($answer instanceof \Throwable) {
                    throw $answer;
                }
                return $answer;
            },
            sleep: function (float $s) use (&$slept): void {
                $slept[] = $s;
            },
            statusOf: static fn (int $status): int => $status,
            beforeSleep: function (RetryEvent $e) use (&$events): void {
                $events[] = $e;
            },
        );
        $this->assertSame(200, $result);
        $this->assertSame([[1, 0.5, Outcome::Transport, 0, $busy, null], [2, 1.0, Outcome::Throttled, 429, null, 429]],
            array_map(static fn (RetryEvent $e): array => [$e->attempt, $e->delay, $e->outcome, $e->status, $e->thrown,
                $e->result], $events));
        $this->assertSame([0.5, 1.0], $slept);

        $calls = 0;
        $stop = new \RuntimeException('stop retrying');
        try {
            $backoff->run(self::failing($calls), sleep: function (float $s): void {
                $this->fail('waited');
            }, beforeSleep: static function (RetryEvent $e) use ($stop): never {
                throw $stop;
            });
            $this->fail('not thrown');
        } catch (\RuntimeException $e) {
            $this->assertSame($stop, $e);
        }
        $this->assertSame(1, $calls, 'no wait, no further attempt');
    }

    public function testTheCallersOwnThrowableIsNotRetriedEvenWhenRetryOnListsRequestError(): void
    {
        // B18: reported as request_error (not counted), rethrown unchanged
        $backoff = new Backoff(['retry_on' => 'transport,request_error', 'initial_delay_seconds' => 0.001]);
        $gate = new Gate(['failures_to_enter_recovery' => 1], null, static function (): void {
        });
        $calls = 0;
        $mine = new \LogicException('my bug');
        try {
            $backoff->run(function () use (&$calls, $mine): never {
                $calls++;
                throw $mine;
            }, $gate);
            $this->fail('not rethrown');
        } catch (\LogicException $e) {
            $this->assertSame($mine, $e);
        }
        $this->assertSame(1, $calls);
        $this->assertSame([1, 0, 'closed'], [$gate->stats()['reported'], $gate->stats()['counted_failures'],
            $gate->state()]);
    }
}

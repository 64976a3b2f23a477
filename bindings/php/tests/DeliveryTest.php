<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Backoff;
use Respite\ClosedException;
use Respite\Engine;
use Respite\Gate;
use Respite\InvalidArgumentException;
use Respite\InvalidPolicyException;
use Respite\Policy;
use Respite\Queue;
use Respite\QueueFullException;
use Respite\TemporarilyUnavailableException;
use Respite\TooLargeException;

final class DeliveryTest extends TestCase
{
    private const POLICY = '{"name": "edgehog", "maximum_capacity": 3, "retry_times": 1,
        "error_handlers": [{"on": "server_error", "strategy": "retry"}, {"on": "client_error", "strategy": "discard"}]}';

    public function testPolicyFromJson(): void
    {
        $p = Policy::fromJson(self::POLICY);
        $this->assertSame('edgehog', $p->name());
        $this->assertSame(3, $p->maximumCapacity());
        $this->assertSame(1, $p->retryTimes());
        $this->assertSame('retry', $p->strategyFor(503));
        $this->assertSame('retry', $p->strategyFor(null, transportFailed: true));
        $this->assertSame('discard', $p->strategyFor(404));
        $this->assertSame([['on' => 'server_error', 'strategy' => 'retry'], ['on' => 'client_error', 'strategy' => 'discard']],
            $p->handlers());
        $this->assertSame($p->toJson(), Policy::fromJson($p->toJson())->toJson());
    }

    public function testInvalidPolicyListsEveryProblem(): void
    {
        $json = '{"name": "", "maximum_capacity": 0, "error_handlers": []}';
        try {
            respite_policy_from_json($json);
            $this->fail('the raw call accepted it');
        } catch (InvalidPolicyException $raw) {
            // the one typemap reads the problems, wherever it raises
            [$expected, $rawProblems] = [$raw->getMessage(), $raw->getProblems()];
        }
        $count = count($rawProblems);
        try {
            Policy::fromJson($json);
            $this->fail('accepted');
        } catch (InvalidPolicyException $e) {
            $this->assertSame($expected, $e->getMessage());
            $this->assertCount($count, $e->getProblems());
            $this->assertEquals($rawProblems, $e->getProblems());
            $this->assertGreaterThanOrEqual(2, $count);
            $this->assertSame('/name', $e->getProblems()[0]->pointer);
        }
    }

    public function testSyntaxErrorHasLineAndColumn(): void
    {
        try {
            Policy::fromJson("{\n  \"name\": ,}");
            $this->fail('accepted');
        } catch (InvalidPolicyException $e) {
            $this->assertSame(2, $e->getProblems()[0]->line);
            $this->assertGreaterThan(0, $e->getProblems()[0]->column);
        }
    }

    public function testBuilderUsesTheSameRules(): void
    {
        $p = Policy::builder('b', 10)->addHandler('404,500', 'retry')->retryTimes(2)->build();
        $this->assertSame('retry', $p->strategyFor(500));
        try {
            Policy::builder(null, 10)->build();
            $this->fail('accepted');
        } catch (InvalidPolicyException $e) {
            $this->assertNotEmpty($e->getProblems());
        }
    }

    public function testQueueTakeSettleAndAccounting(): void
    {
        $q = new Queue(Policy::fromJson(self::POLICY), ['overflow' => 'drop_newest', 'max_bytes' => 64]);
        $q->enqueue("bin\0ary", 0.0);
        $q->enqueue('two', 0.0);
        $q->enqueue('three', 0.0);
        try {
            $q->enqueue('four', 0.0);
            $this->fail('accepted at capacity');
        } catch (QueueFullException $e) {
            $this->assertStringContainsString('maximum_capacity 3', $e->getMessage());
        }
        $batch = $q->take(2, 1.0);
        $this->assertCount(2, $batch);
        $this->assertSame(["bin\0ary", 'two'], $batch->payloads());
        $this->assertSame(1, $batch->attempts(0));
        $this->assertSame([1, 2], [$batch->id(0), $batch->id(1)]); // L3: in the order accepted
        $this->assertSame('delivered', $batch->settle(0, 'delivered'));
        $this->assertSame('retry', $batch->settle(1, 'retry'));
        $batch->close();
        $s = $q->stats();
        $this->assertTrue($s['balanced']);
        $this->assertSame(2, $s['pending']);
        $this->assertSame(1, $s['delivered']);
        $q->checkAccounting();
        $this->expectException(TooLargeException::class);
        (new Queue(null, ['max_bytes' => 4]))->enqueue('too large', 0.0);
    }

    public function testBatchOutlivesItsQueue(): void
    {
        $q = new Queue();
        $q->enqueue('x', 0.0);
        $batch = $q->take(1, 0.0);
        $q->close();
        $this->assertSame('x', $batch->payload(0));
        try {
            $batch->settle(0, 'delivered');
            $this->fail('settled on a freed queue');
        } catch (ClosedException $e) {
            $this->assertSame('queue is closed', $e->getMessage());
        }
        $batch->close();
        $this->expectException(ClosedException::class);
        $batch->count();
    }

    public function testStopAccepting(): void
    {
        $q = new Queue();
        $q->stopAccepting();
        $this->assertFalse($q->isAccepting());
        $this->expectException(ClosedException::class);
        $q->enqueue('late', 0.0);
    }

    public function testEngineSendsRetriesAndDrains(): void
    {
        $policy = Policy::fromJson(self::POLICY);
        $queue = new Queue($policy);
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 5], logger: new MemoryLogger());
        $engine = new Engine($queue, $gate, ['min_entries_per_message' => 1]);
        $queue->enqueue('a', 0.0);
        $this->assertSame('send', $engine->next(0.0));
        $this->assertSame(['a'], $engine->take(0.0));
        $engine->settle(503, null, 0.0);
        $this->assertSame('wait', $engine->next(1.0));
        $this->assertSame(4.0, $engine->waitSeconds());
        try {
            $engine->take(1.0);
            $this->fail('admitted while paused');
        } catch (TemporarilyUnavailableException $e) {
            $this->assertSame(4.0, $e->getRetryAfter());
        }
        $this->assertSame('send', $engine->next(6.0));
        $this->assertSame(['a'], $engine->take(6.0));
        $engine->settle(200, null, 6.0);
        $engine->startClosing(7.0);
        $this->assertSame('done', $engine->next(7.0));
        $this->assertSame(0, $engine->unsent());
        $this->assertSame(1, $queue->stats()['delivered']);
    }

    public function testARejectedSettleKeepsTheBatchInFlight(): void
    {
        $queue = new Queue();
        $engine = new Engine($queue, new Gate(), ['min_entries_per_message' => 1]);
        $queue->enqueue('a', 0.0);
        $this->assertSame(['a'], $engine->take(0.0));
        try {
            $engine->settle(600, null, 0.0);
            $this->fail('settled with status 600');
        } catch (InvalidArgumentException $e) {
            $this->assertSame([1], $engine->attempts()); // still in flight, still ours
        }
        $engine->settle(200, null, 0.0);
        $this->assertSame([], $engine->attempts());
        $queue->enqueue('b', 1.0);
        $this->assertSame('send', $engine->next(1.0));
        $this->assertSame(['b'], $engine->take(1.0));
        $this->assertSame(1, $queue->stats()['delivered']);
    }

    public function testTheEngineHoldsItsQueueGateAndPolicy(): void
    {
        $policy = Policy::fromJson('{"name": "p", "maximum_capacity": 10, "error_handlers": [{"on": "any_error", "strategy": "discard"}]}');
        $queue = new Queue($policy);
        $gate = new Gate();
        $engine = new Engine($queue, $gate, ['min_entries_per_message' => 1]);
        $queue->enqueue('a', 0.0);
        // the core counts references: closing the objects here leaves the engine working
        $policy->close();
        $gate->close();
        $queue->close();
        $this->assertFalse($engine->isClosed());
        $this->assertSame('send', $engine->next(1.0));
        $this->assertSame(['a'], $engine->take(1.0));
        $engine->settle(200, null, 1.0);
        $this->assertSame(1, $engine->stats()['events_sent']);
        $engine->close();
        try {
            $engine->next(2.0);
            $this->fail('used a closed engine');
        } catch (ClosedException $e) {
            $this->assertSame('engine is closed', $e->getMessage());
        }
        try {
            new Engine($queue, new Gate());
            $this->fail('an engine over a closed queue');
        } catch (ClosedException $e) {
            $this->assertSame('queue is closed', $e->getMessage());
        }
        $this->expectException(ClosedException::class);
        $this->expectExceptionMessage('policy is closed'); // the core's words, as in every language
        new Queue($policy); // not the default policy in its place
    }

    public function testClosedPolicyAndBackoff(): void
    {
        $p = Policy::default();
        $p->close();
        try {
            $p->maximumCapacity();
            $this->fail('no exception');
        } catch (ClosedException $e) {
            $this->assertSame('policy is closed', $e->getMessage());
        }
        $b = new Backoff();
        $b->close();
        $this->expectException(ClosedException::class);
        $b->delay(1);
    }

    public function testBackoffRunRetriesThroughTheGate(): void
    {
        $backoff = new Backoff(['max_attempts' => 3, 'initial_delay_seconds' => 0.5, 'jitter' => 'none']);
        $this->assertSame([0.5, 1.0], $backoff->delays());
        $gate = new Gate();
        $slept = [];
        $attempts = 0;
        $result = $backoff->run(function () use (&$attempts) {
            if (++$attempts < 3) {
                throw new HttpError(503);
            }
            return 'ok';
        }, $gate, function (float $s) use (&$slept) {
            $slept[] = $s;
        });
        $this->assertSame('ok', $result);
        $this->assertSame([0.5, 1.0], $slept);
        $this->assertSame(3, $gate->stats()['reported']);
    }
}

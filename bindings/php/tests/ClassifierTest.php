<?php
declare(strict_types=1);

namespace Respite\Tests;

use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Exception\RequestException;
use GuzzleHttp\Exception\ServerException;
use Nyholm\Psr7\Request;
use Nyholm\Psr7\Response as Psr7Response;
use PHPUnit\Framework\TestCase;
use Respite\Backoff;
use Respite\Classifier;
use Respite\Gate;
use Respite\InvalidArgumentException;
use Respite\Outcome;
use Respite\TemporarilyUnavailableException;
use Respite\TransportException;

/** What counts as the service's failure (issue 20): Respite\Classifier, and Gate::call and Backoff::run with it. */
final class ClassifierTest extends TestCase
{
    public function testTheDefaultCountsOnlyWhatTheBindingCanTellIsTheServicesOrTheTransports(): void
    {
        $rules = Classifier::default();
        $request = new Request('GET', 'http://127.0.0.1:1/');
        // the caller's own: not a failure of the service
        foreach ([new \RuntimeException('x'), new \LogicException('x'), new \TypeError('x'), new \JsonException('x'),
                     new InvalidArgumentException('x'), new TemporarilyUnavailableException('inner gate', 3.0)] as $own) {
            $this->assertNull($rules->throwable($own), get_class($own));
            $this->assertFalse(Classifier::isServiceFailure($own));
        }
        $this->assertSame([Outcome::Transport, 0, 0.0], $rules->throwable(new TransportException('gave up')));
        $this->assertSame([Outcome::Transport, 0, 0.0], $rules->throwable(new ConnectException('refused', $request)));
        $this->assertSame([Outcome::Transport, 0, 0.0], $rules->throwable(new RequestException('reset', $request)));
        $this->assertSame([Outcome::ServerError, 503, 7.0], $rules->throwable(new ServerException('503', $request,
            new Psr7Response(503, ['Retry-After' => '7']))));
        // Retry-After is read from 429 and 503 answers only (C6)
        $this->assertSame([Outcome::ServerError, 500, 0.0], $rules->throwable(new ServerException('500', $request,
            new Psr7Response(500, ['Retry-After' => '7']))));
        $this->assertSame([Outcome::RequestError, 404, 0.0], $rules->throwable(new HttpError(404)));
        $this->assertSame([Outcome::Throttled, 429, 2.0], $rules->throwable(new HttpError(429, 2.0)));
        $this->assertSame([Outcome::Unusable, 0, 0.0], $rules->throwable(new CarriesOutcome('unusable')));
    }

    public function testTheDefaultJudgesReturnedResponsesByTheirStatus(): void
    {
        $rules = Classifier::default();
        $this->assertSame([Outcome::ServerError, 503, 30.0], $rules->result(new Psr7Response(503, ['Retry-After' => '30'])));
        $this->assertSame([Outcome::Throttled, 429, 0.0], $rules->result(new Psr7Response(429, ['Retry-After' => 'soon'])));
        $this->assertSame([Outcome::RequestError, 404, 0.0], $rules->result(new Psr7Response(404)));
        $this->assertSame([Outcome::Success, 200, 0.0], $rules->result(new Psr7Response(200)));
        foreach ([null, 503, 'text', ['status' => 503], new \stdClass()] as $value) {
            $this->assertSame([Outcome::Success, 0, 0.0], $rules->result($value));
        }
    }

    public function testRulesAreAskedNewestFirstAndNullLeavesTheCallToTheNext(): void
    {
        $rules = Classifier::default()
            ->count(\RuntimeException::class)
            ->ignore(\UnexpectedValueException::class)
            ->onThrowable(fn (\Throwable $e) => $e->getMessage() === 'busy' ? Outcome::Throttled : null)
            ->onThrowable(fn (\Throwable $e) => $e->getMessage() === 'slow' ? 'server_error' : null);
        $this->assertSame([Outcome::Transport, 0, 0.0], $rules->throwable(new \RuntimeException('x')));
        $this->assertNull($rules->throwable(new \UnexpectedValueException('x')));
        $this->assertSame([Outcome::Throttled, 0, 0.0], $rules->throwable(new \UnexpectedValueException('busy')));
        $this->assertSame([Outcome::ServerError, 0, 0.0], $rules->throwable(new \LogicException('slow')));
        $this->assertNull($rules->throwable(new \LogicException('x')));
        // counted with the status it carries
        $this->assertSame([Outcome::RequestError, 404, 0.0], $rules->throwable(new HttpError(404)));
        // the default stays as it was: rules make new classifiers
        $this->assertNull(Classifier::default()->throwable(new \RuntimeException('x')));
        $this->assertSame([Outcome::Transport, 0, 0.0], Classifier::default()->countEveryThrowable()->throwable(new \Error('x')));
        $this->assertNull(Classifier::default()->ignore(TransportException::class)->throwable(new TransportException('x')));
    }

    public function testResultRules(): void
    {
        $rules = Classifier::default()
            ->onResult(fn (mixed $v) => is_array($v) ? $v['status'] ?? null : null)
            ->onResult(fn (mixed $v) => $v === 'empty' ? true : null)
            ->onResult(fn (mixed $v) => $v === 'fine' ? false : null)
            ->onResult(fn (mixed $v) => $v === 'busy' ? 'throttled' : null);
        $this->assertSame([Outcome::ServerError, 502, 0.0], $rules->result(['status' => 502]));
        $this->assertSame([Outcome::Success, 0, 0.0], $rules->result(['body' => 'no status']));
        $this->assertSame([Outcome::Unusable, 0, 0.0], $rules->result('empty'));
        $this->assertSame([Outcome::Success, 0, 0.0], $rules->result('fine'));
        $this->assertSame([Outcome::Throttled, 0, 0.0], $rules->result('busy'));
        $this->assertSame([Outcome::ServerError, 503, 0.0], $rules->result(new Psr7Response(503)));
    }

    public function testBadRulesAndVerdictsAreRefusedClearly(): void
    {
        try {
            Classifier::default()->count(\RuntimeException::class, 'NoSuchClass');
            $this->fail('a class that is not a Throwable was taken');
        } catch (\TypeError $e) {
            $this->assertSame("Classifier::count() takes names of Throwable classes or interfaces (got 'NoSuchClass')", $e->getMessage());
        }
        $this->expectException(\TypeError::class);
        Classifier::default()->ignore(\stdClass::class);
    }

    public function testAVerdictThatIsNoOutcomeIsTheCoresError(): void
    {
        $rules = Classifier::default()->onThrowable(fn () => 'timeout');
        try {
            $rules->throwable(new \RuntimeException('x'));
            $this->fail('not refused');
        } catch (InvalidArgumentException $e) {
            $this->assertStringStartsWith('outcome must be one of success, request_error', $e->getMessage());
        }
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage('http_status must be an integer from 100 to 599 when the transport did not fail (got 600)');
        Classifier::default()->onResult(fn () => 600)->result('x');
    }

    public function testGateCallCountsA503ResponseAndHonoursItsRetryAfter(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 5], logger: new MemoryLogger());
        $answer = new Psr7Response(503, ['Retry-After' => '40']);
        $this->assertSame($answer, $gate->call(fn () => $answer));
        $this->assertSame(1, $gate->stats()['counted_failures']);
        $this->assertGreaterThan(35.0, $gate->retryAfter()); // G15: the hint lengthened the pause
    }

    public function testGateCallWithItsOwnClassifier(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 2], logger: new MemoryLogger());
        $counting = Classifier::default()->count(\DomainException::class);
        foreach ([1, 2] as $_) {
            try {
                $gate->call(fn () => throw new \DomainException('quota'), $counting);
            } catch (\DomainException) {
            }
        }
        $this->assertSame('open', $gate->state());
        $this->assertSame(2, $gate->stats()['counted_failures']);
        // a result rule turns an answer into a failure
        $other = new Gate(['failures_to_enter_recovery' => 1], logger: new MemoryLogger());
        $protected = $other->protect(fn (array $body) => $body, Classifier::default()->onResult(fn (array $b) => $b === [] ? true : null));
        $this->assertSame(['ok' => 1], $protected(['ok' => 1]));
        $this->assertSame('closed', $other->state());
        $this->assertSame([], $protected([]));
        $this->assertSame('open', $other->state());
    }

    public function testAProbeEndingWithTheCallersOwnErrorClosesTheGate(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 1], logger: new MemoryLogger());
        $gate->report(Outcome::Transport, now: 10.0);
        $permit = $gate->acquire(11.5); // the probe
        $this->assertSame(Outcome::RequestError, $gate->reportThrowable(new \LogicException('bug'), $permit, 11.6));
        $this->assertSame('closed', $gate->state(11.7)); // G8: the service answered
    }

    public function testBackoffRunRetriesWhatCountsAndRethrowsTheCallersOwnAtOnce(): void
    {
        $backoff = new Backoff(['max_attempts' => 4, 'initial_delay_seconds' => 0.5]);
        $gate = new Gate(logger: new MemoryLogger());
        $slept = [];
        $sleep = function (float $s) use (&$slept): void {
            $slept[] = $s;
        };
        $calls = 0;
        $own = new \LogicException('bug');
        try {
            $backoff->run(function () use (&$calls, $own) {
                $calls++;
                throw $own;
            }, $gate, $sleep, null, $report);
            $this->fail('not rethrown');
        } catch (\LogicException $e) {
            $this->assertSame($own, $e);
        }
        $this->assertSame([1, [], Outcome::RequestError], [$calls, $slept, $report['last_outcome']]);
        $this->assertSame(0, $gate->stats()['counted_failures']);

        $calls = 0;
        $answer = $backoff->run(function () use (&$calls) {
            return ++$calls < 3 ? new Psr7Response(503) : new Psr7Response(200);
        }, $gate, $sleep);
        $this->assertSame([3, 200, [0.5, 1.0]], [$calls, $answer->getStatusCode(), $slept]);
        $this->assertSame(2, $gate->stats()['counted_failures']);

        // the gate's classifier is the retry's too, unless the retry has its own
        $counting = new Gate(classifier: Classifier::default()->count(\LogicException::class), logger: new MemoryLogger());
        $calls = 0;
        try {
            $backoff->run(function () use (&$calls) {
                $calls++;
                throw new \LogicException('flaky');
            }, $counting, $sleep);
        } catch (TransportException $gaveUp) {
            $this->assertInstanceOf(\LogicException::class, $gaveUp->getPrevious());
        }
        $this->assertSame([4, 4], [$calls, $counting->stats()['counted_failures']]);
        $calls = 0;
        try {
            $backoff->run(function () use (&$calls) {
                $calls++;
                throw new \LogicException('bug');
            }, $counting, $sleep, classifier: Classifier::default());
        } catch (\LogicException) {
        }
        $this->assertSame(1, $calls);
    }
}

/** An exception that says which outcome it stands for. */
final class CarriesOutcome extends \RuntimeException
{
    public function __construct(private string $outcome)
    {
        parent::__construct($outcome);
    }

    public function getOutcome(): string
    {
        return $this->outcome;
    }
}

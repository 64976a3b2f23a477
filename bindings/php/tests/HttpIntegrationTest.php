<?php
declare(strict_types=1);

namespace Respite\Tests;

use GuzzleHttp\Client as Guzzle;
use GuzzleHttp\Exception\ClientException;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Exception\ServerException;
use GuzzleHttp\HandlerStack;
use Nyholm\Psr7\Request;
use PHPUnit\Framework\TestCase;
use Psr\Http\Client\ClientExceptionInterface;
use Psr\Http\Client\NetworkExceptionInterface;
use Respite\Backoff;
use Respite\Gate;
use Respite\Http\GatedClient;
use Respite\Http\GuzzleMiddleware;
use Respite\Http\TemporarilyUnavailableException;
use Respite\Http\TransportException;

/**
 * Issue 21's PHP integrations against respite-fault-server: a PSR-18 client (Guzzle's, with
 * Nyholm's requests) wrapped by GatedClient, and Guzzle with GuzzleMiddleware, over real HTTP.
 */
final class HttpIntegrationTest extends TestCase
{
    use UsesFaultServer;

    /** @var list<float> what the retries slept */
    private array $slept = [];

    private function gate(int $failures = 3, array $more = []): Gate
    {
        return new Gate(['failures_to_enter_recovery' => $failures, 'recovery_seconds' => 30] + $more, logger: new MemoryLogger());
    }

    private function psr18(Gate $gate, ?Backoff $backoff = null): GatedClient
    {
        $sleep = function (float $s): void {
            $this->slept[] = $s;
        };
        return new GatedClient(new Guzzle(['timeout' => 0.5]), $gate, $backoff, sleep: $sleep);
    }

    private function guzzle(Gate $gate, ?Backoff $backoff = null): Guzzle
    {
        $stack = HandlerStack::create();
        $stack->push(GuzzleMiddleware::gate($gate, $backoff), 'respite');
        return new Guzzle(['handler' => $stack, 'timeout' => 0.5]);
    }

    private static function request(string $path = 'items'): Request
    {
        return new Request('GET', self::$server->url . $path);
    }

    private function assertRefusedWithoutARequest(callable $send, Gate $gate, int $seen): void
    {
        try {
            $send();
            $this->fail('the paused gate let a request through');
        } catch (TemporarilyUnavailableException $e) {
            $this->assertInstanceOf(ClientExceptionInterface::class, $e);
            $this->assertInstanceOf(\Respite\TemporarilyUnavailableException::class, $e);
            $this->assertGreaterThan(25.0, $e->getRetryAfter());
            $this->assertLessThanOrEqual(30.0, $e->getRetryAfter());
            $this->assertSame(respite_refusal_message($e->getRetryAfter()), $e->getMessage());
        }
        $this->assertSame('open', $gate->state());
        $this->assertSame($seen, self::$server->requests(), 'a refused request reached the server');
    }

    public function testPsr18ThreeServiceUnavailablePauseTheGateAndTheFourthIsRefusedWithoutARequest(): void
    {
        self::$server->script('down');
        $gate = $this->gate();
        $http = $this->psr18($gate);
        for ($i = 0; $i < 3; $i++) {
            $this->assertSame(503, $http->sendRequest(self::request())->getStatusCode()); // PSR-18: an answer, not an exception
        }
        $this->assertSame(3, $gate->stats()['counted_failures']);
        $this->assertRefusedWithoutARequest(fn () => $http->sendRequest(self::request()), $gate, 3);
    }

    public function testPsr18OtherClientErrorsNeverCount(): void
    {
        self::$server->script('2*404; 400; 409; 422');
        $gate = $this->gate(1);
        $http = $this->psr18($gate);
        foreach ([404, 404, 400, 409, 422] as $status) {
            $this->assertSame($status, $http->sendRequest(self::request())->getStatusCode());
        }
        $this->assertSame([0, 'closed', 5], [$gate->stats()['counted_failures'], $gate->state(), self::$server->requests()]);
    }

    public function testPsr18TransportErrorsCountAndPassUnchanged(): void
    {
        self::$server->script('hang for=5');
        $gate = $this->gate(2);
        $http = $this->psr18($gate);
        for ($i = 0; $i < 2; $i++) {
            try {
                $http->sendRequest(self::request());
                $this->fail('a timeout gave an answer');
            } catch (NetworkExceptionInterface $e) {
                $this->assertInstanceOf(ConnectException::class, $e); // Guzzle's own, unchanged
            }
        }
        $this->assertSame(2, $gate->stats()['counted_failures']);
        $this->assertRefusedWithoutARequest(fn () => $http->sendRequest(self::request()), $gate, 2);
    }

    public function testPsr18RetryAfterLengthensThePause(): void
    {
        self::$server->script('429 retry_after=120');
        $gate = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 5], logger: new MemoryLogger());
        $this->assertSame(429, $this->psr18($gate)->sendRequest(self::request())->getStatusCode());
        $this->assertGreaterThan(115.0, $gate->retryAfter()); // G15: min(120, max(Rmax 300, R 5))
    }

    public function testPsr18RetriesByTheBackoffAndReturnsTheAnswerItGaveUpOn(): void
    {
        self::$server->script('2*503; healthy');
        $gate = $this->gate(10);
        $backoff = new Backoff(['max_attempts' => 3, 'initial_delay_seconds' => 0.25]);
        $this->assertSame(200, $this->psr18($gate, $backoff)->sendRequest(self::request())->getStatusCode());
        $this->assertSame([[0.25, 0.5], 3, 2], [$this->slept, self::$server->requests(), $gate->stats()['counted_failures']]);

        self::$server->script('503 retry_after=2');
        $this->slept = [];
        $this->assertSame(503, $this->psr18($gate, $backoff)->sendRequest(self::request())->getStatusCode());
        $this->assertSame([2.0, 2.0], $this->slept); // B7: the hint raised the delays
        // a 404 is not retried
        self::$server->script('404');
        $this->slept = [];
        $this->assertSame(404, $this->psr18($gate, $backoff)->sendRequest(self::request())->getStatusCode());
        $this->assertSame([], $this->slept);
    }

    public function testPsr18GivesUpOnTransportErrorsWithANetworkException(): void
    {
        self::$server->script('hang for=5');
        $request = self::request();
        try {
            $this->psr18($this->gate(10), new Backoff(['max_attempts' => 2, 'initial_delay_seconds' => 0.01]))->sendRequest($request);
            $this->fail('no answer, no exception');
        } catch (TransportException $gaveUp) {
            $this->assertInstanceOf(NetworkExceptionInterface::class, $gaveUp);
            $this->assertInstanceOf(\Respite\TransportException::class, $gaveUp);
            $this->assertSame($request, $gaveUp->getRequest());
            $this->assertInstanceOf(ConnectException::class, $gaveUp->getPrevious());
            $this->assertStringContainsString('2 attempts', $gaveUp->getMessage());
        }
        $this->assertSame([0.01], $this->slept);
    }

    public function testGuzzleThreeServiceUnavailablePauseTheGateAndTheFourthIsRefusedWithoutARequest(): void
    {
        self::$server->script('down');
        $gate = $this->gate();
        $http = $this->guzzle($gate);
        for ($i = 0; $i < 3; $i++) {
            try {
                $http->get(self::$server->url . 'items');
                $this->fail('http_errors did not throw for a 503');
            } catch (ServerException $e) {
                $this->assertSame(503, $e->getResponse()->getStatusCode());
            }
        }
        $this->assertSame(3, $gate->stats()['counted_failures']);
        $this->assertRefusedWithoutARequest(fn () => $http->get(self::$server->url . 'items'), $gate, 3);
        // asynchronous: a rejected promise, nothing thrown until it is waited on
        $promise = $http->getAsync(self::$server->url . 'items');
        $this->assertSame('rejected', $promise->getState());
        $this->assertRefusedWithoutARequest(fn () => $promise->wait(), $gate, 3);
    }

    public function testGuzzleCountsWhatTheSpecCounts(): void
    {
        // the closed connection first: libcurl sends a request again when a reused connection closes
        self::$server->script('close; 404; 429; 500; healthy');
        $gate = $this->gate(10);
        $http = $this->guzzle($gate);
        $seen = [];
        for ($i = 0; $i < 5; $i++) {
            try {
                $seen[] = $http->get(self::$server->url, ['http_errors' => $i !== 2])->getStatusCode();
            } catch (ClientException | ServerException $e) {
                $seen[] = $e->getResponse()->getStatusCode();
            } catch (ConnectException | \GuzzleHttp\Exception\RequestException $e) {
                $seen[] = 0;
            }
        }
        $this->assertSame([0, 404, 429, 500, 200], $seen);
        // the 429 (an answer: http_errors off), the 500 and the closed connection count; the 404 does not
        $this->assertSame([3, 5], [$gate->stats()['counted_failures'], $gate->stats()['reported']]);
    }

    public function testGuzzleRetriesWithItsDelayAndHonoursRetryAfter(): void
    {
        self::$server->script('2*503; healthy');
        $gate = $this->gate(10);
        $http = $this->guzzle($gate, new Backoff(['max_attempts' => 3, 'initial_delay_seconds' => 0.05]));
        $started = hrtime(true);
        $this->assertSame(200, $http->get(self::$server->url)->getStatusCode());
        $this->assertGreaterThanOrEqual(0.15, (hrtime(true) - $started) / 1e9); // 0.05 + 0.1 waited
        $this->assertSame([3, 2], [self::$server->requests(), $gate->stats()['counted_failures']]);

        // gave up on 503s: the last answer, which http_errors (outside this middleware) throws for
        self::$server->reset();
        self::$server->script('down');
        try {
            $http->get(self::$server->url);
            $this->fail('a 503 passed');
        } catch (ServerException $e) {
            $this->assertSame(503, $e->getResponse()->getStatusCode());
        }
        $this->assertSame(3, self::$server->requests());
        // gave up on connections closed without an answer: a network exception carrying the last error
        self::$server->reset();
        self::$server->script('close');
        try {
            $http->get(self::$server->url . 'x');
            $this->fail('a closed connection gave an answer');
        } catch (TransportException $gaveUp) {
            $this->assertInstanceOf(NetworkExceptionInterface::class, $gaveUp);
            $this->assertInstanceOf(ConnectException::class, $gaveUp->getPrevious());
            $this->assertSame('/x', $gaveUp->getRequest()->getUri()->getPath());
        }
        $this->assertGreaterThanOrEqual(3, self::$server->requests());
        // the pause a Retry-After asks for reaches the gate
        $one = new Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 5], logger: new MemoryLogger());
        self::$server->script('503 retry_after=120');
        try {
            $this->guzzle($one)->get(self::$server->url);
        } catch (ServerException) {
        }
        $this->assertGreaterThan(115.0, $one->retryAfter());
    }

    public function testGuzzleWithoutRetriesPassesTheCallersOwnErrorsUnchanged(): void
    {
        $gate = $this->gate(1);
        $http = $this->guzzle($gate);
        self::$server->script('404');
        try {
            $http->get(self::$server->url);
            $this->fail('http_errors did not throw for a 404');
        } catch (ClientException $e) {
            $this->assertSame(404, $e->getResponse()->getStatusCode());
        }
        $this->assertSame([0, 'closed'], [$gate->stats()['counted_failures'], $gate->state()]);
    }

    public function testGuzzleAHandlerThatThrowsIsReportedAndItsErrorPassesUnchanged(): void
    {
        $gate = $this->gate(1);
        $stack = new HandlerStack(static fn () => throw new \UnexpectedValueException('handler bug'));
        $stack->push(GuzzleMiddleware::gate($gate), 'respite');
        try {
            (new Guzzle(['handler' => $stack]))->get('http://127.0.0.1:1/');
            $this->fail('the handler did not throw');
        } catch (\UnexpectedValueException $e) {
            $this->assertSame('handler bug', $e->getMessage());
        }
        // the caller's own: reported (the permit is not left open), not counted
        $this->assertSame([1, 1, 0], [$gate->stats()['admitted'], $gate->stats()['reported'], $gate->stats()['counted_failures']]);
    }
}

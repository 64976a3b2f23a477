<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Backoff;
use Respite\Client;
use Respite\ClosedException;
use Respite\Gate;
use Respite\InvalidArgumentException;
use Respite\InvalidSettingException;
use Respite\Outcome;
use Respite\Response;
use Respite\TemporarilyUnavailableException;

/** Respite\Client against respite-fault-server (spec section 6). */
final class ClientTest extends TestCase
{
    use UsesFaultServer;

    public function testAnswerCarriesStatusHeadersBodyAndFigures(): void
    {
        self::$server->script('201 body=created header=X-Request-Id:42');
        $client = new Client(['timeout_seconds' => 1.0, 'user_agent' => 'php-test']);
        $response = $client->post(self::$server->url . 'things', "a\0b", ['X-Api-Key' => 'secret', 'X-Two: 2']);
        self::assertSame(201, $response->status);
        self::assertSame(Outcome::Success, $response->outcome());
        self::assertTrue($response->isSuccess());
        self::assertSame('created', $response->body);
        self::assertSame('42', $response->header('x-request-id'));
        self::assertNull($response->header('X-Missing'));
        self::assertSame(1, $response->attempts);
        self::assertGreaterThan(0.0, $response->elapsed);
        self::assertSame('', $response->error);

        $received = self::$server->stats()['received'][0];
        self::assertSame('POST', $received['method']);
        self::assertSame('/things', $received['path']);
        self::assertSame("a\0b", $received['body']);
        self::assertSame('secret', $received['headers']['X-Api-Key']);
        self::assertSame('2', $received['headers']['X-Two']);
        self::assertSame('php-test', $received['headers']['User-Agent']);
    }

    public function testTenTimeoutsOpenTheGateAndRefusalsSendNothing(): void
    {
        self::$server->script('hang for=5');
        $logger = new MemoryLogger();
        $gate = new Gate(['failures_to_enter_recovery' => 10, 'recovery_seconds' => 5], logger: $logger);
        $client = new Client(['timeout_seconds' => 0.1], $gate);
        for ($i = 0; $i < 10; $i++) {
            $response = $client->get(self::$server->url);
            self::assertSame(0, $response->status);
            self::assertSame(Outcome::Transport, $response->outcome());
            self::assertNotSame('', $response->error);
        }
        self::assertSame('open', $gate->state());
        self::assertSame('warning', $logger->lines[0][0]);
        self::assertSame('recovery started: 10 failures within 100s; requests paused for 5s', $logger->lines[0][1]);
        $seen = self::$server->requests();
        self::assertGreaterThanOrEqual(10, $seen);

        $times = [];
        for ($i = 0; $i < 50; $i++) {
            $started = hrtime(true);
            try {
                $client->get(self::$server->url);
                self::fail('the open gate admitted a call');
            } catch (TemporarilyUnavailableException $e) {
                $times[] = (hrtime(true) - $started) / 1e9;
                self::assertGreaterThan(4.0, $e->getRetryAfter());
                self::assertLessThanOrEqual(5.0, $e->getRetryAfter());
                self::assertSame(respite_refusal_message($e->getRetryAfter()), $e->getMessage());
            }
        }
        // the median: a shared CI machine may stall any single call
        sort($times);
        self::assertLessThan(0.001, $times[25], 'a refused call took ' . $times[25] . 's');
        self::assertSame($seen, self::$server->requests(), 'the server saw a request during the pause');
        self::assertSame(50, $gate->stats()['refused']);
    }

    public function testOneVisitorsNotFoundNeverOpensTheGateButServerErrorsDo(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 10, 'recovery_seconds' => 5]);
        $client = new Client(['timeout_seconds' => 1.0], $gate);
        self::$server->script('404');
        for ($i = 0; $i < 25; $i++) {
            $response = $client->get(self::$server->url . 'no/such/page');
            self::assertSame(404, $response->status);
            self::assertSame(Outcome::RequestError, $response->outcome());
        }
        self::assertSame('closed', $gate->state());
        self::assertSame(0, $gate->stats()['counted_failures']);

        self::$server->script('503');
        for ($i = 0; $i < 10; $i++) {
            self::assertSame(Outcome::ServerError, $client->get(self::$server->url)->outcome());
        }
        self::assertSame('open', $gate->state());
        $this->expectException(TemporarilyUnavailableException::class);
        $client->get(self::$server->url);
    }

    public function testRetriesFollowTheBackoffAndReturnTheLastAnswer(): void
    {
        self::$server->script('2*503; healthy');
        $client = new Client([], new Gate(), new Backoff(['max_attempts' => 4, 'initial_delay_seconds' => 0.01]));
        $response = $client->get(self::$server->url);
        self::assertSame(200, $response->status);
        self::assertSame(3, $response->attempts);
        self::assertSame(3, self::$server->requests());

        self::$server->script('503 retry_after=0.02');
        $client = new Client([], null, new Backoff(['max_attempts' => 2, 'initial_delay_seconds' => 0.01]));
        $response = $client->get(self::$server->url);
        self::assertSame(503, $response->status);
        self::assertSame(2, $response->attempts);
        self::assertEqualsWithDelta(0.02, $response->retryAfter, 1e-9);
        self::assertGreaterThanOrEqual(0.02, $response->elapsed);
    }

    public function testUnusableAnswersCountAgainstTheService(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 2, 'recovery_seconds' => 5]);
        $client = new Client([], $gate);
        self::$server->script('200 body=');
        $response = $client->get(self::$server->url);
        self::assertSame(Outcome::Success, $response->outcome());
        $client->reportUnusable($response);
        self::assertSame(Outcome::Unusable, $response->outcome());
        $client->reportUnusable($response); // a second report changes nothing
        self::assertSame(1, $gate->stats()['counted_failures']);

        self::$server->script('404');
        $notFound = $client->get(self::$server->url);
        try {
            $client->reportUnusable($notFound);
            self::fail('a 404 was reported unusable');
        } catch (InvalidArgumentException $e) {
            self::assertSame(
                'only a success can be reported unusable (the response\'s outcome is request_error)',
                $e->getMessage(),
            );
        }
    }

    public function testBadArgumentsAreWordedByTheCoreAndSendNothing(): void
    {
        $client = new Client();
        $cases = [
            ['GE T', self::$server->url, [], "method must be an HTTP method such as GET or POST (got 'GE T')"],
            ['GET', 'ftp://example.com/', [], "url must be an http:// or https:// URL (got 'ftp://example.com/')"],
            ['GET', self::$server->url, ['X-Ok: 1', 'no colon here'],
                'headers must be "Name: value" lines separated by \n (line 2 is "no colon here")'],
        ];
        foreach ($cases as [$method, $url, $headers, $message]) {
            try {
                $client->request($method, $url, $headers);
                self::fail("$method $url was accepted");
            } catch (InvalidArgumentException $e) {
                self::assertSame($message, $e->getMessage());
            }
        }
        try {
            $client->get(self::$server->url, ['X-Evil' => "a\r\nHost: elsewhere"]);
            self::fail('a header with a line break was accepted');
        } catch (InvalidArgumentException $e) {
            self::assertStringContainsString('without line breaks', $e->getMessage());
        }
        self::assertSame(0, self::$server->requests());

        try {
            new Client(['timeout_seconds' => 0]);
            self::fail('timeout 0 was accepted');
        } catch (InvalidSettingException $e) {
            self::assertSame('timeout_seconds', $e->getSetting());
        }
    }

    public function testClosedClientsAndBorrowedObjects(): void
    {
        $client = new Client();
        $client->close();
        $client->close();
        self::assertTrue($client->isClosed());
        try {
            $client->get(self::$server->url);
            self::fail('a closed client made a call');
        } catch (ClosedException $e) {
            self::assertSame('client is closed', $e->getMessage());
        }

        // the client holds its own references: closing the gate or back-off here leaves it working
        self::$server->script('200 body=ok');
        $gate = new Gate();
        $backoff = new Backoff();
        $client = new Client([], $gate, $backoff);
        $gate->close();
        $backoff->close();
        self::assertFalse($client->isClosed());
        self::assertSame('ok', $client->get(self::$server->url)->body);
        $this->expectException(ClosedException::class);
        $this->expectExceptionMessage('gate is closed');
        new Client([], $gate); // not "no gate" in its place
    }

    public function testResponsesOutliveTheirClient(): void
    {
        self::$server->script('200 body=kept');
        $client = new Client();
        $response = $client->get(self::$server->url);
        $client->close();
        unset($client);
        self::assertSame('kept', $response->body);
        self::assertSame('text/plain', $response->header('Content-Type'));
        self::assertInstanceOf(Response::class, $response);
        $response->close();
        $this->expectException(ClosedException::class);
        $this->expectExceptionMessage('response is closed');
        (new Client())->reportUnusable($response);
    }

    public function testHeaderOfAClosedResponseThrowsTheCoresWords(): void
    {
        self::$server->script('200 body=ok');
        $response = (new Client())->get(self::$server->url);
        self::assertSame('text/plain', $response->header('Content-Type'));
        $response->close();
        self::assertSame('ok', $response->body); // the figures stay
        $this->expectException(ClosedException::class);
        $this->expectExceptionMessage('response is closed'); // as Python and Node raise, not null
        $response->header('Content-Type');
    }
}

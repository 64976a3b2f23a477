<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\ClosedException;
use Respite\Event;
use Respite\InvalidArgumentException;
use Respite\InvalidSettingException;
use Respite\Policy;
use Respite\Sender;
use Respite\TemporarilyUnavailableException;

/** Respite\Sender against respite-fault-server (spec section 5, S1-S13). */
final class SenderTest extends TestCase
{
    private const RETRY_POLICY = '{"name": "t", "maximum_capacity": 10000, "retry_times": 100,
        "error_handlers": [{"on": "server_error", "strategy": "retry"}]}'; // a transport failure matches as 503

    use UsesFaultServer;

    public function testPausesProbesGrowsThePauseAndDrainsAfterASuccessfulProbe(): void
    {
        self::$server->script('down');
        $logger = new MemoryLogger();
        $sender = new Sender(
            ['url' => self::$server->url, 'min_entries_per_message' => 1, 'max_entries_per_message' => 4,
                'timeout_seconds' => 0.2],
            gate: ['failures_to_enter_recovery' => 3, 'recovery_seconds' => 0.2, 'recovery_multiplier' => 2,
                'max_recovery_seconds' => 0.3],
            policy: Policy::fromJson(self::RETRY_POLICY),
            logger: $logger,
        );
        $sender->enqueue('e0');
        $started = $this->waitFor($sender, 'recovery_started');
        self::assertSame(3, $started->failures);
        self::assertEqualsWithDelta(0.2, $started->pause, 1e-9);
        self::assertSame(3, self::$server->requests());
        self::assertTrue($sender->isPaused());
        for ($i = 1; $i < 10; $i++) {
            $sender->enqueue("e$i"); // queued during the pause
        }

        // each pause ends with one probe (the first 4 events); a failed probe doubles the pause, up to the maximum
        $grown = $this->waitFor($sender, 'recovery_extended');
        self::assertEqualsWithDelta(0.3, $grown->pause, 1e-9);
        // the probe is the fourth request: none was sent during the pause, however long the test took to look
        self::assertSame(4, self::$server->requests(), 'a request was sent during the pause');
        $capped = $this->waitFor($sender, 'recovery_extended');
        self::assertEqualsWithDelta(0.3, $capped->pause, 1e-9);
        self::assertSame(5, self::$server->requests());

        self::$server->script('healthy');
        $this->waitFor($sender, 'recovered');
        $deadline = microtime(true) + 3.0;
        while ($sender->stats()['queue']['delivered'] < 10 && microtime(true) < $deadline) {
            usleep(5000); // no new event arrives: the queue drains by itself
        }
        $stats = $sender->stats();
        self::assertSame(10, $stats['queue']['delivered']);
        self::assertSame(8, $stats['requests']); // 3 failures, 3 probes, then 2 batches of the drain
        self::assertSame(0, $stats['queue']['pending']);
        self::assertFalse($stats['paused']);
        self::assertSame(self::$server->requests(), $stats['requests']);
        self::assertSame(3, $stats['gate']['probes']);
        $delivered = [];
        foreach (self::$server->stats()['received'] as $request) {
            if ($request['status'] === 200) {
                array_push($delivered, ...explode("\n", $request['body']));
            }
        }
        self::assertSame(array_map(fn (int $i): string => "e$i", range(0, 9)), $delivered);
        self::assertSame([503, 503, 503, 503, 503, 200, 200, 200], array_column(self::$server->stats()['received'], 'status'));

        $levels = array_column($logger->lines, 0);
        $messages = array_column($logger->lines, 1);
        self::assertSame('warning', $levels[0]);
        self::assertSame('send failed: HTTP 503: 503', $messages[0]);
        self::assertContains('recovery started: 3 failures within 100s; requests paused for 0.2s', $messages);
        self::assertContains('recovery extended: the probe failed; requests paused for 0.3s', $messages);
        $recovered = array_search('recovered: the service answered; requests resume', $messages, true);
        self::assertNotFalse($recovered);
        self::assertSame('info', $levels[$recovered]);
        self::assertSame(0, $sender->close());
    }

    public function testProducersNeverBlockWhileTheServerHangs(): void
    {
        self::$server->script('hang for=5');
        $sender = new Sender(
            ['url' => self::$server->url, 'min_entries_per_message' => 1, 'timeout_seconds' => 1.0,
                'close_timeout_seconds' => 0.2],
            policy: Policy::fromJson(self::RETRY_POLICY),
        );
        $slowest = 0.0;
        $started = hrtime(true);
        for ($i = 0; $i < 2000; $i++) {
            $t = hrtime(true);
            $sender->enqueue(sprintf('{"n": %d}', $i));
            $slowest = max($slowest, (hrtime(true) - $t) / 1e9);
        }
        $total = (hrtime(true) - $started) / 1e9;
        self::assertLessThan(0.2, $total, "2000 enqueues took {$total}s");
        self::assertLessThan(0.01, $slowest, "an enqueue took {$slowest}s");
        $deadline = microtime(true) + 1.0;
        while (self::$server->requests() === 0 && microtime(true) < $deadline) {
            usleep(5000);
        }
        self::assertSame(1, self::$server->requests()); // one send hangs; the queue only grows
        $queue = $sender->stats()['queue'];
        self::assertGreaterThan(0, $queue['in_flight']); // the first batch hangs; the rest waits
        self::assertSame(2000, $queue['pending'] + $queue['in_flight']);

        // healthy gate: close drains until close_timeout_seconds, then abandons the hung send
        $t = hrtime(true);
        $stats = null;
        $unsent = $sender->shutdown();
        $took = (hrtime(true) - $t) / 1e9;
        self::assertLessThan(1.0, $took);
        $stats = $sender->stats()['queue'];
        self::assertSame(2000, $stats['accepted']);
        self::assertSame($stats['pending'], $unsent);
        self::assertSame(2000, $unsent); // the abandoned send failed and its events went back
        self::assertTrue($stats['balanced']);
        self::assertSame($unsent, $sender->close());
    }

    public function testCloseWhilePausedReturnsAtOnceWithTheUnsentCount(): void
    {
        self::$server->script('down');
        $logger = new MemoryLogger();
        $sender = new Sender(
            ['url' => self::$server->url, 'min_entries_per_message' => 1, 'timeout_seconds' => 0.2],
            gate: ['failures_to_enter_recovery' => 2, 'recovery_seconds' => 30],
            policy: Policy::fromJson(self::RETRY_POLICY),
            logger: $logger,
        );
        $sender->enqueue('first');
        $this->waitFor($sender, 'recovery_started');
        for ($i = 0; $i < 7; $i++) {
            $sender->enqueue("later $i");
        }
        try {
            $sender->flush(1.0);
            self::fail('flush while paused did not refuse');
        } catch (TemporarilyUnavailableException $e) {
            self::assertGreaterThan(29.0, $e->getRetryAfter());
            self::assertLessThanOrEqual(30.0, $e->getRetryAfter());
        }
        $requests = self::$server->requests();

        $t = hrtime(true);
        $unsent = $sender->shutdown();
        $took = (hrtime(true) - $t) / 1e9;
        self::assertLessThan(0.1, $took, "close while paused took {$took}s");
        self::assertSame(8, $unsent);
        self::assertSame(8, $sender->shutdown()); // a second close: the same count
        self::assertSame($requests, self::$server->requests());
        $stats = $sender->stats();
        self::assertTrue($stats['closed']);
        self::assertSame(8, $stats['queue']['pending']);
        self::assertSame(['warning', 'closed with 8 events not sent'], array_slice(end($logger->lines), 0, 2));

        self::assertSame(8, $sender->close());
        self::assertSame(8, $sender->close());
        try {
            $sender->enqueue('too late');
            self::fail('a closed sender queued an event');
        } catch (ClosedException $e) {
            self::assertSame('sender is closed', $e->getMessage());
        }
        foreach ([fn () => $sender->flush(), fn () => $sender->stats(), fn () => $sender->shutdown(),
                     fn () => $sender->addHeader('X-A', 'b'), fn () => $sender->takeEvents()] as $use) {
            try {
                $use();
                self::fail('a closed sender was used');
            } catch (ClosedException $e) {
                self::assertSame('sender is closed', $e->getMessage());
            }
        }
    }

    public function testCloseWhileHealthyDeliversEverything(): void
    {
        $sender = new Sender(['url' => self::$server->url, 'gzip' => true, 'prefix' => '[', 'separator' => ',',
            'suffix' => ']'], headers: ['X-Api-Key' => 'secret']);
        for ($i = 0; $i < 30; $i++) {
            $sender->enqueue((string) $i); // fewer than min_entries_per_message (50)
        }
        self::assertSame(0, self::$server->requests());
        self::assertSame(0, $sender->close());
        $received = self::$server->stats()['received'];
        self::assertCount(1, $received);
        self::assertTrue($received[0]['gzip']);
        self::assertSame('secret', $received[0]['headers']['X-Api-Key']);
        self::assertSame('application/json', $received[0]['headers']['Content-Type']);
        self::assertSame(range(0, 29), json_decode($received[0]['body'], true));
    }

    public function testFlushSendsBelowTheMinimum(): void
    {
        $sender = new Sender(['url' => self::$server->url]);
        $sender->enqueue('one');
        $sender->enqueue('two');
        $sender->flush(2.0);
        $stats = $sender->stats();
        self::assertSame(2, $stats['queue']['delivered']);
        self::assertSame(1, $stats['requests']);
        self::assertGreaterThan(0, $stats['bytes_sent']);
        self::assertSame("one\ntwo", self::$server->stats()['received'][0]['body']);
        $sender->close();
    }

    public function testRandomFaultsKeepTheAccountingAndDeliverEachEventOnce(): void
    {
        self::$server->script('random p=0.4 seed=42 faults=500,503,429,404,reset,close');
        $sender = new Sender(
            ['url' => self::$server->url, 'min_entries_per_message' => 10, 'max_entries_per_message' => 40,
                'timeout_seconds' => 2.0],
            gate: ['failures_to_enter_recovery' => 5, 'recovery_seconds' => 0.02, 'max_recovery_seconds' => 0.08],
            policy: Policy::fromJson('{"name": "r", "maximum_capacity": 100000, "retry_times": 2, "error_handlers": '
                . '[{"on": "server_error", "strategy": "retry"}, {"on": [429], "strategy": "retry"}]}'),
            logger: static fn () => null,
        );
        $count = 1500;
        for ($i = 0; $i < $count; $i++) {
            $sender->enqueue("ev-$i");
        }
        $deadline = microtime(true) + 20.0;
        for (;;) {
            try {
                $sender->flush(2.0);
                break;
            } catch (TemporarilyUnavailableException $e) {
                self::assertLessThan($deadline, microtime(true), 'the queue did not drain');
                usleep((int) (min($e->getRetryAfter(), 0.1) * 1e6));
            }
        }
        self::assertSame(0, $sender->shutdown());
        $stats = $sender->stats();
        $q = $stats['queue'];
        self::assertSame($count, $q['accepted']);
        self::assertSame($q['accepted'], $q['delivered'] + $q['dropped_capacity'] + $q['expired']
            + $q['retries_exhausted'] + $q['discarded'] + $q['pending'] + $q['in_flight']);
        self::assertGreaterThan(0, $q['delivered']);
        self::assertGreaterThan(0, $q['retried']);
        self::assertGreaterThan(0, $q['discarded']);          // 404: no handler
        self::assertGreaterThan(0, $q['retries_exhausted']);
        self::assertGreaterThan(0, $stats['engine']['sends_failed']);

        $seen = [];
        foreach (self::$server->stats()['received'] as $request) {
            if ($request['status'] >= 200 && $request['status'] < 300) {
                foreach (explode("\n", $request['body']) as $id) {
                    self::assertMatchesRegularExpression('/^ev-\d+$/', $id);
                    $seen[$id] = ($seen[$id] ?? 0) + 1;
                }
            }
        }
        self::assertSame([1], array_values(array_unique($seen)), 'an event arrived more than once');
        self::assertCount($q['delivered'], $seen);
        self::assertGreaterThanOrEqual($stats['requests'], self::$server->requests());
        $sender->close();
    }

    public function testSettingsAndHeadersAreCheckedByTheCore(): void
    {
        try {
            new Sender([]);
            self::fail('a sender without a url was made');
        } catch (InvalidSettingException $e) {
            self::assertSame('url', $e->getSetting());
            self::assertSame("url must be an http:// or https:// URL (got '')", $e->getMessage());
        }
        try {
            new Sender(['url' => self::$server->url], gate: ['failures_to_enter_recovery' => 0]);
            self::fail('a bad gate setting was accepted');
        } catch (InvalidSettingException $e) {
            self::assertSame('failures_to_enter_recovery', $e->getSetting());
        }
        $sender = new Sender(['url' => self::$server->url]);
        try {
            $sender->addHeader('Bad Name', 'x');
            self::fail('a bad header name was accepted');
        } catch (InvalidArgumentException $e) {
            self::assertStringStartsWith('name must be a header name', $e->getMessage());
        }
        $this->expectException(InvalidArgumentException::class);
        new Sender(['url' => self::$server->url], headers: ['X-A' => "b\nc"]);
    }

    /** Polls the sender's events until one of $type arrives (2 s at most). */
    public function testTheSendersNameStartsItsLines(): void
    {
        needs_name_setting('sender');
        self::$server->script('down');
        $logger = new MemoryLogger();
        $sender = new Sender(['url' => self::$server->url, 'min_entries_per_message' => 1, 'timeout_seconds' => 0.2],
            policy: Policy::fromJson(self::RETRY_POLICY), logger: $logger, name: 'usage');
        $sender->enqueue('e0');
        self::assertSame('usage', $this->waitFor($sender, 'send_failed')->source);
        self::assertSame(['warning', 'usage: send failed: HTTP 503: 503'], array_slice($logger->lines[0], 0, 2));
        $sender->close();
    }

    private function waitFor(Sender $sender, string $type): Event
    {
        $deadline = microtime(true) + 2.0;
        do {
            foreach ($sender->takeEvents() as $event) {
                if ($event->type === $type) {
                    return $event;
                }
            }
            usleep(2000);
        } while (microtime(true) < $deadline);
        self::fail("no $type event within 2s");
    }
    /**
     * S15: a Sender made before pcntl_fork() returns at once in the child (enqueue and flush throw
     * ClosedException, close() is 0) and so does the child's plain exit, which frees a Sender left
     * open; the parent's sender goes on. In a PHP process of its own: a forked PHPUnit would run on.
     */
    public function testASenderMadeBeforeForkReturnsAtOnceInTheChild(): void
    {
        preg_match('#\S*/respite\.so$#m', (string) file_get_contents('/proc/self/maps'), $m);
        $this->assertNotEmpty($m, 'the loaded respite.so');
        $code = <<<'PHP'
            require $argv[1];
            $sender = new Respite\Sender(['url' => $argv[2], 'min_entries_per_message' => 50]);
            $leftOpen = new Respite\Sender(['url' => $argv[2], 'min_entries_per_message' => 50]);
            $sender->enqueue('before');
            $leftOpen->enqueue('left');
            $pid = pcntl_fork();
            if ($pid === 0) {
                $seen = [];
                foreach (['enqueue' => fn () => $sender->enqueue('child'), 'flush' => fn () => $sender->flush(1.0)] as $what => $call) {
                    try {
                        $call();
                        $seen[$what] = 'returned';
                    } catch (Respite\ClosedException $e) {
                        $seen[$what] = $e->getMessage();
                    }
                }
                $seen['close'] = $sender->close();
                echo json_encode($seen), "\n";
                exit(0); // a plain exit: $leftOpen is freed on the way out
            }
            for ($deadline = microtime(true) + 10; pcntl_waitpid($pid, $status, WNOHANG) === 0; usleep(10000)) {
                if (microtime(true) > $deadline) {
                    posix_kill($pid, SIGKILL);
                    exit('the child did not exit');
                }
            }
            $sender->flush(5.0);
            echo json_encode(['delivered' => $sender->stats()['queue']['delivered'], 'close' => $sender->close(),
                'left' => $leftOpen->close()]), "\n";
            PHP;
        $out = shell_exec(escapeshellarg(PHP_BINARY) . ' -d extension=' . escapeshellarg($m[0]) . ' -r '
            . escapeshellarg($code) . ' ' . escapeshellarg(dirname(__DIR__) . '/autoload.php') . ' '
            . escapeshellarg(self::$server->url) . ' 2>&1');
        $lines = explode("\n", trim((string) $out));
        $this->assertCount(2, $lines, (string) $out);
        $belongs = 'sender belongs to the process that made it: this process was forked after, '
            . 'and the sender sends nothing here';
        $this->assertSame(['enqueue' => $belongs, 'flush' => $belongs, 'close' => 0], json_decode($lines[0], true));
        $this->assertSame(['delivered' => 1, 'close' => 0, 'left' => 0], json_decode($lines[1], true));
        $bodies = array_column(self::$server->stats()['received'], 'body');
        sort($bodies);
        $this->assertSame(['before', 'left'], $bodies);
    }
}

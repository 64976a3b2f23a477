<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;

/**
 * The PHP-FPM pattern of docs/php.md end to end (spec section 10): a pool of four static
 * php-fpm workers serves fpm/enqueue_app.php, whose requests enqueue into one durable queue
 * file through Respite\Queue (queue_path); one `respite deliver` (RESPITE_CLI, which
 * scripts/test.d/70-php.sh sets) sends them to respite-fault-server while the requests come.
 */
final class DeliverFpmTest extends TestCase
{
    private const WORKERS = 4;
    private const ROUNDS = 10;
    private const EVENTS_PER_REQUEST = 25;

    private FaultServer $server;
    private PhpFpm $fpm;
    private string $dir;
    /** @var resource|null */
    private $deliver = null;

    protected function setUp(): void
    {
        // A receiver that sometimes fails: the worker's policy retries.
        $this->server = new FaultServer('random p=0.2 seed=5 faults=503,reset');
        $this->fpm = new PhpFpm(self::WORKERS);
        $this->dir = sys_get_temp_dir() . '/respite-deliver-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($this->dir);
    }

    protected function tearDown(): void
    {
        if ($this->deliver !== null) {
            proc_terminate($this->deliver, 9);
            proc_close($this->deliver);
        }
        $this->fpm->stop();
        $this->server->stop();
        foreach (glob($this->dir . '/*') ?: [] as $file) {
            unlink($file);
        }
        rmdir($this->dir);
    }

    public function testRequestsOfAnFpmPoolEnqueueAndOneWorkerDeliversEveryEvent(): void
    {
        $queuePath = $this->dir . '/usage.db';
        $policy = $this->dir . '/policy.json';
        file_put_contents($policy, '{"name": "usage", "maximum_capacity": 100000, "retry_times": 100,'
            . ' "error_handlers": [{"on": "any_error", "strategy": "retry"}]}');
        $this->startDeliver($queuePath, $policy);

        $answers = [];
        for ($round = 0; $round < self::ROUNDS; $round++) {
            $answers = array_merge($answers, $this->fpm->requests(__DIR__ . '/fpm/enqueue_app.php', [
                'RESPITE_QUEUE_PATH' => $queuePath,
                'RESPITE_EVENTS' => (string) self::EVENTS_PER_REQUEST,
            ], self::WORKERS));
        }
        $total = self::ROUNDS * self::WORKERS * self::EVENTS_PER_REQUEST;
        self::assertGreaterThanOrEqual(2, count(array_unique(array_column($answers, 'pid'))), json_encode($answers));
        foreach ($answers as $answer) {
            self::assertSame([1, true], [$answer['durable'], $answer['balanced']], json_encode($answer));
        }

        // The worker drains what the pool enqueued.
        $deadline = microtime(true) + 60;
        while (count($received = $this->delivered()) < $total && microtime(true) < $deadline) {
            usleep(100_000);
        }
        $expected = [];
        foreach ($answers as $answer) {
            for ($i = 0; $i < self::EVENTS_PER_REQUEST; $i++) {
                $expected[] = json_encode(['request' => $answer['request'], 'event' => $i]);
            }
        }
        sort($expected);
        $got = array_keys($received);
        sort($got);
        self::assertSame($expected, $got, 'every event enqueued by a request reached the receiver');
        self::assertSame([1], array_values(array_unique($received)), 'each exactly once (no process died)');

        // systemd's stop: SIGTERM, a drain, the accounting on stderr, exit 0.
        proc_terminate($this->deliver, 15);
        $deadline = microtime(true) + 30;
        // The exit code is given once, by the first status that sees the process ended.
        while (($status = proc_get_status($this->deliver))['running'] && microtime(true) < $deadline) {
            usleep(50_000);
        }
        self::assertFalse($status['running'], 'respite deliver stopped on SIGTERM');
        self::assertSame(0, $status['exitcode'], $this->deliverLog());
        proc_close($this->deliver);
        $this->deliver = null;
        $log = $this->deliverLog();
        self::assertStringContainsString('stopping (SIGTERM)', $log);
        self::assertStringContainsString("accepted             $total\n", $log);
        self::assertStringContainsString("delivered            $total\n", $log);
        self::assertStringContainsString('accounting           balanced', $log);
    }

    private function startDeliver(string $queuePath, string $policy): void
    {
        $cli = getenv('RESPITE_CLI');
        if ($cli === false || !is_executable($cli)) {
            self::fail('RESPITE_CLI must name the built respite command (scripts/test.d/70-php.sh sets it)');
        }
        $process = proc_open([$cli, 'deliver', '--queue', $queuePath, '--url', $this->server->url, '--policy', $policy,
            '--ids-header', 'X-Respite-Ids', '--failures-to-enter-recovery', '20', '--recovery-seconds', '0.2',
            '--progress-seconds', '1'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->dir . '/deliver.out', 'w'],
                2 => ['file', $this->dir . '/deliver.log', 'w']], $pipes);
        self::assertNotFalse($process, "cannot start $cli");
        $this->deliver = $process;
    }

    /** @return array<string, int> payload => times the receiver accepted it (2xx) */
    private function delivered(): array
    {
        $received = [];
        foreach ($this->server->stats()['received'] as $record) {
            if ($record['status'] < 200 || $record['status'] > 299) {
                continue;
            }
            foreach (explode("\n", $record['body']) as $event) {
                $received[$event] = ($received[$event] ?? 0) + 1;
            }
        }
        return $received;
    }

    private function deliverLog(): string
    {
        return (string) @file_get_contents($this->dir . '/deliver.log') . $this->fpm->logs();
    }
}

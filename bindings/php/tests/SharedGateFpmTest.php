<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;

/**
 * One shared gate across a php-fpm pool (spec section 9): Debian's php-fpm with four static
 * workers serves fpm/gate_app.php, which makes a Gate on one shared file per request and calls
 * respite-fault-server through a Client; cgi-fcgi sends the requests, several at once (PhpFpm).
 */
final class SharedGateFpmTest extends TestCase
{
    private const WORKERS = 4;

    private FaultServer $server;
    private PhpFpm $fpm;
    private string $dir;

    protected function setUp(): void
    {
        // Every answer is late, so that requests sent together occupy different workers.
        $this->server = new FaultServer('503 delay=1');
        $this->fpm = new PhpFpm(self::WORKERS);
        $this->dir = $this->fpm->dir;
    }

    protected function tearDown(): void
    {
        $this->fpm->stop(); // SIGTERM: the master stops its workers; its directory goes
        $this->server->stop();
    }

    public function testFailuresInSeveralWorkersOpenTheGateForThePoolWithOneProbe(): void
    {
        // 1. Four failures, served together by different workers, open the gate (4 failures).
        $first = $this->requests(self::WORKERS);
        foreach ($first as $answer) {
            self::assertSame(['sent', 503], [$answer['result'], $answer['status'] ?? null], json_encode($first));
        }
        self::assertGreaterThanOrEqual(2, count(array_unique(array_column($first, 'pid'))), json_encode($first));
        self::assertContains('open', array_column($first, 'state'), json_encode($first));
        self::assertSame(self::WORKERS, $this->server->requests());

        // 2. Every worker now refuses without a network call.
        $refused = $this->requests(self::WORKERS);
        foreach ($refused as $answer) {
            self::assertSame(['refused', 'open'], [$answer['result'], $answer['state']], json_encode($refused));
            self::assertGreaterThan(0.0, $answer['retry_after']);
            self::assertLessThanOrEqual(3.0, $answer['retry_after']);
        }
        self::assertSame(self::WORKERS, $this->server->requests(), 'a refused request reached the server');

        // 3. After the pause, of four requests at once exactly one is the pool's probe.
        usleep((int) ((max(array_column($refused, 'retry_after')) + 0.2) * 1e6));
        $after = $this->requests(self::WORKERS);
        $results = array_count_values(array_column($after, 'result'));
        self::assertSame(['refused' => self::WORKERS - 1, 'sent' => 1], [
            'refused' => $results['refused'] ?? 0, 'sent' => $results['sent'] ?? 0], json_encode($after));
        self::assertSame(self::WORKERS + 1, $this->server->requests(), 'more than one probe reached the server');
        $all = array_merge($first, $refused, $after);
        self::assertGreaterThanOrEqual(2, count(array_unique(array_column($all, 'pid'))), json_encode($all));
    }

    /** @return list<array<string, mixed>> the answers of $n requests sent at once, in the order sent */
    private function requests(int $n): array
    {
        return $this->fpm->requests(__DIR__ . '/fpm/gate_app.php', [
            'RESPITE_URL' => $this->server->url,
            'RESPITE_SHARED_PATH' => $this->dir . '/gates',
        ], $n);
    }
}

<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;

/**
 * One shared gate across a php-fpm pool (spec section 9): Debian's php-fpm with four static
 * workers serves fpm/gate_app.php, which makes a Gate on one shared file per request and calls
 * respite-fault-server through a Client; cgi-fcgi sends the requests, several at once.
 */
final class SharedGateFpmTest extends TestCase
{
    private const WORKERS = 4;

    private FaultServer $server;
    private string $dir;
    /** @var resource|null */
    private $fpm = null;
    private int $port;

    protected function setUp(): void
    {
        // Every answer is late, so that requests sent together occupy different workers.
        $this->server = new FaultServer('503 delay=1');
        $this->dir = sys_get_temp_dir() . '/respite-fpm-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($this->dir);
        $this->port = self::freePort();
        $this->startFpm();
    }

    protected function tearDown(): void
    {
        if ($this->fpm !== null) {
            proc_terminate($this->fpm); // SIGTERM: the master stops its workers
            proc_close($this->fpm);
        }
        $this->server->stop();
        foreach (glob($this->dir . '/*') ?: [] as $file) {
            unlink($file);
        }
        rmdir($this->dir);
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
        $env = [
            'SCRIPT_FILENAME' => __DIR__ . '/fpm/gate_app.php',
            'REQUEST_METHOD' => 'GET',
            'RESPITE_URL' => $this->server->url,
            'RESPITE_SHARED_PATH' => $this->dir . '/gates',
        ];
        $running = [];
        for ($i = 0; $i < $n; $i++) {
            $command = [self::program('timeout'), '30', self::program('cgi-fcgi'), '-bind', '-connect', "127.0.0.1:{$this->port}"];
            $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
            self::assertNotFalse($process, 'cannot start cgi-fcgi');
            $running[] = [$process, $pipes];
        }
        $answers = [];
        foreach ($running as [$process, $pipes]) {
            $out = stream_get_contents($pipes[1]);
            $err = stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            $status = proc_close($process);
            $body = explode("\r\n\r\n", (string) $out, 2)[1] ?? '';
            $answer = json_decode($body, true);
            self::assertIsArray($answer, "cgi-fcgi exited $status; out: $out; err: $err; " . $this->logs());
            $answers[] = $answer;
        }
        return $answers;
    }

    private function startFpm(): void
    {
        $root = posix_getuid() === 0; // php-fpm runs as root only when told to, with a pool user
        $config = $this->dir . '/php-fpm.conf';
        file_put_contents($config, implode("\n", [
            '[global]',
            "pid = {$this->dir}/php-fpm.pid",
            "error_log = {$this->dir}/php-fpm.log",
            'daemonize = no',
            '[respite]',
            "listen = 127.0.0.1:{$this->port}",
            'pm = static',
            'pm.max_children = ' . self::WORKERS,
            "php_admin_value[error_log] = {$this->dir}/php.log",
            $root ? "user = root\ngroup = root" : '',
            '',
        ]));
        $extension = getenv('RESPITE_PHP_EXTENSION');
        if ($extension === false || !is_file($extension)) {
            self::fail('RESPITE_PHP_EXTENSION must name the built respite.so (scripts/test.d/70-php.sh sets it)');
        }
        $command = [self::program('php-fpm' . PHP_MAJOR_VERSION . '.' . PHP_MINOR_VERSION, 'php-fpm'),
            '-n', '-d', "extension=$extension", '-y', $config, '-F'];
        if ($root) {
            $command[] = '-R';
        }
        $fpm = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->dir . '/stdout', 'w'],
            2 => ['file', $this->dir . '/stderr', 'w']], $pipes);
        self::assertNotFalse($fpm, 'cannot start php-fpm');
        $this->fpm = $fpm;
        $deadline = microtime(true) + 10;
        while (($socket = @fsockopen('127.0.0.1', $this->port, $code, $message, 0.2)) === false) {
            if (!proc_get_status($fpm)['running'] || microtime(true) > $deadline) {
                self::fail('php-fpm did not start listening: ' . $this->logs());
            }
            usleep(50_000);
        }
        fclose($socket);
    }

    /** php-fpm's and the pages' logs, for a failure's message. */
    private function logs(): string
    {
        $text = '';
        foreach (['stderr', 'php-fpm.log', 'php.log'] as $name) {
            if (is_file("{$this->dir}/$name")) {
                $text .= "\n--- $name\n" . file_get_contents("{$this->dir}/$name");
            }
        }
        return $text;
    }

    /** The absolute path of the first of $names found on PATH or in /usr/sbin (scripts/setup.sh installs them). */
    private static function program(string ...$names): string
    {
        $dirs = array_merge(explode(':', (string) getenv('PATH')), ['/usr/sbin', '/usr/local/sbin']);
        foreach ($names as $name) {
            foreach ($dirs as $dir) {
                if ($dir !== '' && is_executable("$dir/$name")) {
                    return "$dir/$name";
                }
            }
        }
        self::fail(implode(' or ', $names) . ' not found: scripts/setup.sh installs php-fpm and libfcgi-bin');
    }

    private static function freePort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($socket);
        $port = (int) substr(strrchr((string) stream_socket_get_name($socket, false), ':'), 1);
        fclose($socket);
        return $port;
    }
}

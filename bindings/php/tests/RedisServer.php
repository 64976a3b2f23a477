<?php
declare(strict_types=1);

namespace Respite\Tests;

/**
 * A redis-server of the test's own on 127.0.0.1 (a free port, no persistence,
 * a temporary directory), for the fleet gate's tests.
 */
final class RedisServer
{
    /** @var resource|null */
    private $process;
    private string $dir;
    public readonly int $port;
    public readonly string $url;

    /** On $port (a Redis that comes back after a kill), else on a free one. */
    public function __construct(?int $port = null)
    {
        if ($port === null) {
            $probe = stream_socket_server('tcp://127.0.0.1:0');
            $port = (int) substr(strrchr((string) stream_socket_get_name($probe, false), ':'), 1);
            fclose($probe);
        }
        $this->port = $port;
        $this->url = "redis://127.0.0.1:{$this->port}";
        $this->dir = sys_get_temp_dir() . '/respite-redis-' . bin2hex(random_bytes(6));
        mkdir($this->dir);
        $process = proc_open(['redis-server', '--port', (string) $this->port, '--bind', '127.0.0.1', '--save', '',
            '--appendonly', 'no', '--dir', $this->dir], [1 => ['file', '/dev/null', 'w']], $pipes);
        if ($process === false) {
            throw new \RuntimeException('cannot start redis-server (scripts/setup.sh installs it)');
        }
        $this->process = $process;
        $until = microtime(true) + 10;
        while (($socket = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $errno, $error, 1)) === false) {
            if (!proc_get_status($process)['running'] || microtime(true) > $until) {
                $this->kill();
                throw new \RuntimeException("redis-server did not start on port {$this->port}");
            }
            usleep(10000);
        }
        fclose($socket);
    }

    public function __destruct()
    {
        $this->kill();
    }

    /** Stops it at once (SIGKILL), as a crash would. */
    public function kill(): void
    {
        if ($this->process !== null) {
            proc_terminate($this->process, 9);
            proc_close($this->process);
            $this->process = null;
            array_map('unlink', glob($this->dir . '/*') ?: []);
            @rmdir($this->dir);
        }
    }
}

<?php
declare(strict_types=1);

namespace Respite\Tests;

/**
 * respite-fault-server as a subprocess (tools/fault_server/README.md): its
 * path comes from RESPITE_FAULT_SERVER (scripts/test.d/70-php.sh sets it).
 * Driven over its /__control/ requests with PHP's own HTTP streams, so
 * the tests do not depend on the code they test.
 */
final class FaultServer
{
    /** @var resource */
    private $process;
    /** @var array<int, resource> */
    private array $pipes;
    public readonly string $url;

    public function __construct(string $script = 'healthy')
    {
        $path = getenv('RESPITE_FAULT_SERVER');
        if ($path === false || !is_executable($path)) {
            throw new \RuntimeException('RESPITE_FAULT_SERVER must name the respite-fault-server program (built by '
                . 'cmake --build <build>/release --target respite-fault-server); got ' . var_export($path, true));
        }
        $process = proc_open([$path, '--exit-on-eof', '--script', $script], [0 => ['pipe', 'r'], 1 => ['pipe', 'w']], $pipes);
        if ($process === false) {
            throw new \RuntimeException("cannot start $path");
        }
        $this->process = $process;
        $this->pipes = $pipes;
        $port = (int) fgets($pipes[1]);
        if ($port <= 0) {
            throw new \RuntimeException("$path did not print its port");
        }
        $this->url = "http://127.0.0.1:$port/";
    }

    public function __destruct()
    {
        $this->stop();
    }

    public function stop(): void
    {
        if (isset($this->process)) {
            fclose($this->pipes[0]);
            proc_terminate($this->process);
            proc_close($this->process);
            unset($this->process);
        }
    }

    /** A new script, from its first step. */
    public function script(string $script): void
    {
        $this->control('POST', 'script', $script);
    }

    /** Script back to healthy, counts and records cleared. */
    public function reset(): void
    {
        $this->control('POST', 'reset');
    }

    /** Requests received (control requests excluded). */
    public function requests(): int
    {
        return $this->stats(false)['requests'];
    }

    /** @return array{requests: int, statuses: array<string, int>, received: list<array<string, mixed>>} */
    public function stats(bool $bodies = true): array
    {
        return json_decode($this->control('GET', $bodies ? 'stats' : 'stats?bodies=0'), true, 512, JSON_THROW_ON_ERROR);
    }

    private function control(string $method, string $what, string $body = ''): string
    {
        $context = stream_context_create(['http' => [
            'method' => $method, 'content' => $body, 'ignore_errors' => true, 'timeout' => 5,
            'header' => "Content-Type: text/plain\r\nConnection: close",
        ]]);
        $answer = file_get_contents($this->url . '__control/' . $what, false, $context);
        $status = isset($http_response_header[0]) ? (int) explode(' ', $http_response_header[0])[1] : 0;
        if ($answer === false || $status !== 200) {
            throw new \RuntimeException("fault server: $method $what answered $status: " . var_export($answer, true));
        }
        return $answer;
    }
}

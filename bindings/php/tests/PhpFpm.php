<?php
declare(strict_types=1);

namespace Respite\Tests;

/**
 * Debian's php-fpm as a test harness: a pool of static workers on a free 127.0.0.1 port, in a
 * temporary directory, loading the built respite extension (RESPITE_PHP_EXTENSION, which
 * scripts/test.d/70-php.sh sets); requests sent with cgi-fcgi (libfcgi-bin), several at once
 * so they land on different workers. scripts/setup.sh installs php-fpm and libfcgi-bin.
 *
 *     $fpm = new PhpFpm(4);
 *     $answers = $fpm->requests(__DIR__ . '/fpm/page.php', ['NAME' => 'value'], 4); // JSON bodies, decoded
 *     $fpm->stop();
 */
final class PhpFpm
{
    public readonly string $dir;
    public readonly int $port;
    /** @var resource|null */
    private $process = null;

    public function __construct(public readonly int $workers = 4)
    {
        $this->dir = sys_get_temp_dir() . '/respite-fpm-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($this->dir);
        $this->port = self::freePort();
        $this->start();
    }

    public function __destruct()
    {
        $this->stop();
    }

    /** SIGTERM to the master (it stops its workers), then the temporary directory goes. */
    public function stop(): void
    {
        if ($this->process !== null) {
            proc_terminate($this->process);
            proc_close($this->process);
            $this->process = null;
        }
        if (is_dir($this->dir)) {
            foreach (glob($this->dir . '/*') ?: [] as $file) {
                unlink($file);
            }
            rmdir($this->dir);
        }
    }

    /**
     * Sends $n requests for $script at once (FastCGI parameters $params, e.g. where the page
     * finds its files) and returns each answer's JSON body decoded, in the order sent.
     *
     * @param array<string, string> $params
     * @return list<array<string, mixed>>
     */
    public function requests(string $script, array $params, int $n): array
    {
        $env = ['SCRIPT_FILENAME' => $script, 'REQUEST_METHOD' => 'GET'] + $params;
        $running = [];
        for ($i = 0; $i < $n; $i++) {
            $command = [self::program('timeout'), '30', self::program('cgi-fcgi'), '-bind', '-connect', "127.0.0.1:{$this->port}"];
            $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
            if ($process === false) {
                throw new \RuntimeException('cannot start cgi-fcgi');
            }
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
            if (!is_array($answer)) {
                throw new \RuntimeException("cgi-fcgi exited $status; out: $out; err: $err; " . $this->logs());
            }
            $answers[] = $answer;
        }
        return $answers;
    }

    /** php-fpm's and the pages' logs, for a failure's message. */
    public function logs(): string
    {
        $text = '';
        foreach (['stderr', 'php-fpm.log', 'php.log'] as $name) {
            if (is_file("{$this->dir}/$name")) {
                $text .= "\n--- $name\n" . file_get_contents("{$this->dir}/$name");
            }
        }
        return $text;
    }

    private function start(): void
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
            'pm.max_children = ' . $this->workers,
            "php_admin_value[error_log] = {$this->dir}/php.log",
            $root ? "user = root\ngroup = root" : '',
            '',
        ]));
        $extension = getenv('RESPITE_PHP_EXTENSION');
        if ($extension === false || !is_file($extension)) {
            throw new \RuntimeException('RESPITE_PHP_EXTENSION must name the built respite.so (scripts/test.d/70-php.sh sets it)');
        }
        $command = [self::program('php-fpm' . PHP_MAJOR_VERSION . '.' . PHP_MINOR_VERSION, 'php-fpm'),
            '-n', '-d', "extension=$extension", '-y', $config, '-F'];
        if ($root) {
            $command[] = '-R';
        }
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->dir . '/stdout', 'w'],
            2 => ['file', $this->dir . '/stderr', 'w']], $pipes);
        if ($process === false) {
            throw new \RuntimeException('cannot start php-fpm');
        }
        $this->process = $process;
        $deadline = microtime(true) + 10;
        while (($socket = @fsockopen('127.0.0.1', $this->port, $code, $message, 0.2)) === false) {
            if (!proc_get_status($process)['running'] || microtime(true) > $deadline) {
                throw new \RuntimeException('php-fpm did not start listening: ' . $this->logs());
            }
            usleep(50_000);
        }
        fclose($socket);
    }

    /** The absolute path of the first of $names found on PATH or in /usr/sbin (scripts/setup.sh installs them). */
    public static function program(string ...$names): string
    {
        $dirs = array_merge(explode(':', (string) getenv('PATH')), ['/usr/sbin', '/usr/local/sbin']);
        foreach ($names as $name) {
            foreach ($dirs as $dir) {
                if ($dir !== '' && is_executable("$dir/$name")) {
                    return "$dir/$name";
                }
            }
        }
        throw new \RuntimeException(implode(' or ', $names) . ' not found: scripts/setup.sh installs php-fpm and libfcgi-bin');
    }

    private static function freePort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        if ($socket === false) {
            throw new \RuntimeException('no free port on 127.0.0.1');
        }
        $port = (int) substr(strrchr((string) stream_socket_get_name($socket, false), ':'), 1);
        fclose($socket);
        return $port;
    }
}

<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;

/**
 * pcntl_fork() (issue 21 item 5): a Client made before the fork works in the child on
 * connections of its own (C11); an Engine on a memory queue is plain memory and works on the
 * child's copy; the Sender is the parent's: S15 (SenderTest). In a PHP process of its own: a
 * forked PHPUnit would run on.
 */
final class ForkTest extends TestCase
{
    use UsesFaultServer;

    public function testAClientAndAnEngineMadeBeforeForkWorkInTheChild(): void
    {
        preg_match('#\S*/respite\.so$#m', (string) file_get_contents('/proc/self/maps'), $m);
        $this->assertNotEmpty($m, 'the loaded respite.so');
        $code = <<<'PHP'
            require $argv[1];
            $url = $argv[2];
            $gate = new Respite\Gate(['failures_to_enter_recovery' => 1, 'recovery_seconds' => 60.0]);
            $client = new Respite\Client(['timeout_seconds' => 2.0], $gate);
            $client->get($url); // a pooled connection the child must not use
            $queue = new Respite\Queue(Respite\Policy::default());
            $engine = new Respite\Engine($queue, new Respite\Gate(), ['min_entries_per_message' => 1, 'max_entries_per_message' => 1]);
            $queue->enqueue('before');
            $pid = pcntl_fork();
            if ($pid === 0) {
                $seen = ['client' => $client->get($url)->status];
                $queue->enqueue('child');
                $action = $engine->next();
                $seen['engine'] = [$action, $engine->take()];
                $engine->settle(200);
                $seen['pending'] = $queue->pending();
                $client->close(); // frees the child's connections only
                echo json_encode($seen), "\n";
                exit(0);
            }
            pcntl_waitpid($pid, $status);
            echo json_encode(['child exit' => pcntl_wexitstatus($status), 'client' => $client->get($url)->status,
                'pending' => $queue->pending()]), "\n";
            PHP;
        $out = shell_exec(escapeshellarg(PHP_BINARY) . ' -d extension=' . escapeshellarg($m[0]) . ' -r '
            . escapeshellarg($code) . ' ' . escapeshellarg(dirname(__DIR__) . '/autoload.php') . ' '
            . escapeshellarg(self::$server->url) . ' 2>&1');
        $lines = explode("\n", trim((string) $out));
        $this->assertCount(2, $lines, (string) $out);
        $this->assertSame(['client' => 200, 'engine' => ['send', ['before']], 'pending' => 1],
            json_decode($lines[0], true));
        $this->assertSame(['child exit' => 0, 'client' => 200, 'pending' => 1], json_decode($lines[1], true));
        $this->assertSame(3, self::$server->stats()['requests']); // the parent's two, the child's one
    }
}

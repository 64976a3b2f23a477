<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Gate;
use Respite\Sender;

/** A Sender's gate on a shared file (spec section 9) is the one every handle on that file sees. */
final class SharedSenderGateTest extends TestCase
{
    use UsesFaultServer;

    public function testFailedSendsOpenTheGateForEveryHandleOnTheFile(): void
    {
        self::$server->script('down');
        $path = sys_get_temp_dir() . '/respite-sender-' . getmypid() . '-' . bin2hex(random_bytes(4)) . '.gates';
        $shared = ['shared_path' => $path, 'name' => 'collector', 'failures_to_enter_recovery' => 1];
        $watcher = Gate::profile('usage_sharing', $shared); // as another worker's handle would
        $sender = new Sender(['url' => self::$server->url, 'min_entries_per_message' => 1], gate: $shared);
        try {
            $sender->enqueue('one');
            $deadline = microtime(true) + 10;
            while ($watcher->state() !== 'open') {
                self::assertLessThan($deadline, microtime(true), "the sender's failed send did not open the shared gate");
                usleep(20_000);
            }
            self::assertGreaterThanOrEqual(1, self::$server->requests());
        } finally {
            $sender->close();
            $watcher->close();
            unlink($path);
        }
    }
}

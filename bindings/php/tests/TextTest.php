<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Client;
use Respite\Gate;
use Respite\InvalidArgumentException;
use Respite\InvalidPolicyException;
use Respite\Policy;
use Respite\Sender;

/** E15: a NUL byte inside text never cuts it silently: the core refuses it. */
final class TextTest extends TestCase
{
    use UsesFaultServer;

    private static function refused(string $what, string $shown): string
    {
        return "$what must be text without NUL bytes (got '$shown')";
    }

    /** @param callable(): mixed $call */
    private function assertRefused(string $message, callable $call): void
    {
        try {
            $call();
            $this->fail("accepted: $message");
        } catch (InvalidArgumentException $e) {
            $this->assertSame($message, $e->getMessage());
        }
    }

    public function testANulInASettingsValueOrNameIsRefused(): void
    {
        $this->assertRefused(self::refused('value', '5?junk'), fn () => new Gate(['recovery_seconds' => "5\0junk"]));
        $this->assertRefused(self::refused('name', 'probes?junk'), fn () => new Gate(["probes\0junk" => 1]));
        $this->assertSame(5.0, (new Gate(['recovery_seconds' => '5']))->settings()['recovery_seconds']);
    }

    public function testANulInAHeaderIsRefusedAndDropsNothing(): void
    {
        $client = new Client();
        $this->assertRefused(
            self::refused('headers', 'X-Trace: a?b?Authorization: secret'),
            fn () => $client->get(self::$server->url, ['X-Trace' => "a\0b", 'Authorization' => 'secret']),
        );
        $this->assertSame(0, self::$server->requests());
        $sender = new Sender(['url' => self::$server->url]);
        $this->assertRefused(self::refused('value', 'secret?junk'),
            fn () => $sender->addHeader('Authorization', "secret\0junk"));
        $sender->close();
    }

    public function testANulInAPolicyDocumentIsItsSyntaxError(): void
    {
        $document = '{"name": "p", "maximum_capacity": 1, "error_handlers": [{"on": "any_error", "strategy": "discard"}]}';
        $this->assertSame('p', Policy::fromJson($document)->name());
        $this->expectException(InvalidPolicyException::class);
        Policy::fromJson($document . "\0garbage");
    }
}

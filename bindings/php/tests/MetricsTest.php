<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\ClosedException;
use Respite\Gate;
use Respite\InvalidArgumentException;
use Respite\Metrics;
use Respite\Queue;
use Respite\Sender;
use Respite\TemporarilyUnavailableException;

/** Respite\Metrics (spec section 12, M9): the core's text and samples, and an endpoint. */
final class MetricsTest extends TestCase
{
    use UsesFaultServer;

    /** Opened for good by two counted failures; one call refused. */
    private static function openGate(): Gate
    {
        $gate = new Gate(['name' => 'billing', 'failures_to_enter_recovery' => 2, 'recover_never' => true]);
        $gate->report('server_error', permit: $gate->acquire());
        $gate->report('server_error', permit: $gate->acquire());
        try {
            $gate->acquire();
            self::fail('admitted');
        } catch (TemporarilyUnavailableException) {
        }
        return $gate;
    }

    public function testTheTextAndSamplesComeFromTheCore(): void
    {
        $gate = self::openGate();
        $queue = new Queue(settings: ['name' => 'events']);
        $queue->enqueue('one');
        $text = Metrics::render($gate, $queue);
        self::assertStringContainsString("\nrespite_gate_state{gate=\"billing\",respite_gate_state=\"open\"} 1\n", $text);
        self::assertStringContainsString("\nrespite_gate_refused_total{gate=\"billing\"} 1\n", $text);
        self::assertStringContainsString("\nrespite_gate_pause_left_seconds{gate=\"billing\"} +Inf\n", $text);
        self::assertStringContainsString("\nrespite_queue_pending{queue=\"events\"} 1\n", $text);
        self::assertStringEndsWith("# EOF\n", $text);
        self::assertStringContainsString("\napp_gate_admitted_total{gate=\"billing\"} 2\n",
            Metrics::renderWithPrefix('app', $gate));
        $samples = Metrics::samples($gate, $queue);
        self::assertCount(19 + 15, $samples);
        self::assertSame(['family' => 'respite_gate_state', 'name' => 'respite_gate_state', 'type' => 'stateset',
            'unit' => '', 'help' => $samples[1]['help'],
            'labels' => ['gate' => 'billing', 'respite_gate_state' => 'open'], 'value' => 1.0], $samples[1]);
        self::assertSame('application/openmetrics-text; version=1.0.0; charset=utf-8', Metrics::contentType());
    }

    public function testASenderHasItsOwnGateAndQueueFigures(): void
    {
        $sender = new Sender(['url' => self::$server->url, 'name' => 'usage', 'min_entries_per_message' => 1]);
        $sender->enqueue('a');
        $sender->enqueue('b');
        $sender->flush(2.0);
        $text = Metrics::render($sender);
        self::assertStringContainsString("\nrespite_sender_events_sent_total{sender=\"usage\"} 2\n", $text);
        self::assertStringContainsString("\nrespite_queue_delivered_total{queue=\"usage\"} 2\n", $text);
        self::assertStringContainsString("\nrespite_gate_state{gate=\"usage\",respite_gate_state=\"closed\"} 1\n", $text);
        $sender->close();
    }

    public function testBadHandlesAreRefusedByTheCore(): void
    {
        $a = new Gate(['name' => 'a']);
        try {
            Metrics::render($a, new Gate(['name' => 'a']));
            self::fail('two gates named a');
        } catch (InvalidArgumentException $e) {
            self::assertStringContainsString("metrics already have a gate named 'a'", $e->getMessage());
        }
        $this->expectException(InvalidArgumentException::class);
        Metrics::renderWithPrefix('my-app', $a);
    }

    public function testAClosedHandleIsClosed(): void
    {
        $gate = new Gate();
        $gate->close();
        $this->expectException(ClosedException::class);
        $this->expectExceptionMessage('gate is closed');
        Metrics::render($gate);
    }

    public function testAnEndpointServesTheTextWithItsContentType(): void
    {
        $extension = getenv('RESPITE_PHP_EXTENSION');
        if ($extension === false || $extension === '') {
            self::fail('RESPITE_PHP_EXTENSION names the extension for the built-in server (scripts/test.d/70-php.sh sets it)');
        }
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int)substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
        fclose($probe);
        $server = proc_open([PHP_BINARY, '-n', '-d', "extension=$extension", '-S', "127.0.0.1:$port",
            __DIR__ . '/metrics/endpoint.php'], [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        try {
            $body = false;
            for ($i = 0; $i < 100 && $body === false; $i++) {
                usleep(50_000);
                $body = @file_get_contents("http://127.0.0.1:$port/metrics");
            }
            self::assertNotFalse($body, 'the built-in server answered');
            self::assertContains('Content-Type: ' . Metrics::contentType(), $http_response_header);
            self::assertStringContainsString("\nrespite_queue_pending{queue=\"events\"} 1\n", $body);
            self::assertStringContainsString("\nrespite_gate_state{gate=\"billing\",respite_gate_state=\"closed\"} 1\n", $body);
            self::assertStringEndsWith("# EOF\n", $body);
        } finally {
            proc_terminate($server);
            proc_close($server);
        }
    }
}

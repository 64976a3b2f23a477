<?php
// A metrics endpoint as an app writes it (MetricsTest serves it with PHP's built-in server).
declare(strict_types=1);

require __DIR__ . '/../../autoload.php';

$gate = new Respite\Gate(['name' => 'billing']);
$queue = new Respite\Queue(settings: ['name' => 'events']);
$queue->enqueue('one');
Respite\Metrics::respond($gate, $queue);

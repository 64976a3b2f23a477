<?php
declare(strict_types=1);

/*
 * The page DeliverFpmTest serves from php-fpm: every request opens the durable queue file
 * (as any FPM page would: the queue outlives the request; `respite deliver` sends it) and
 * enqueues RESPITE_EVENTS events named after a random request id; it answers the id and which
 * worker did it, as JSON. The FastCGI parameters RESPITE_QUEUE_PATH and RESPITE_EVENTS say
 * where and how many.
 */

require __DIR__ . '/../../autoload.php';

use Respite\Policy;
use Respite\Queue;

$policy = Policy::fromJson('{"name": "usage", "maximum_capacity": 100000, "retry_times": 100,'
    . ' "error_handlers": [{"on": "any_error", "strategy": "retry"}]}');
$queue = new Queue($policy, ['queue_path' => $_SERVER['RESPITE_QUEUE_PATH']]);
$request = bin2hex(random_bytes(8));
for ($i = 0; $i < (int) $_SERVER['RESPITE_EVENTS']; $i++) {
    $queue->enqueue(json_encode(['request' => $request, 'event' => $i]));
}
$stats = $queue->stats();
header('Content-Type: application/json');
echo json_encode(['request' => $request, 'pid' => getmypid(), 'durable' => $stats['durable'] ?? null, 'balanced' => $stats['balanced']]);

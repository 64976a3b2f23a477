<?php
declare(strict_types=1);

/*
 * The page SharedGateFpmTest serves from php-fpm: every request makes its own
 * Gate on the shared file (as any FPM page would) and calls the URL through a
 * Client; it answers what happened, in which worker, as JSON. The FastCGI
 * parameters RESPITE_URL and RESPITE_SHARED_PATH say where.
 */

require __DIR__ . '/../../autoload.php';

use Respite\Client;
use Respite\Gate;
use Respite\TemporarilyUnavailableException;

$gate = new Gate([
    'shared_path' => $_SERVER['RESPITE_SHARED_PATH'],
    'failures_to_enter_recovery' => 4,
    'failures_window_seconds' => 60,
    'recovery_seconds' => 3,
], name: 'cloud');
$client = new Client(['timeout_seconds' => 5], $gate);
try {
    $answer = ['result' => 'sent', 'status' => $client->get($_SERVER['RESPITE_URL'])->status];
} catch (TemporarilyUnavailableException $refused) {
    $answer = ['result' => 'refused', 'retry_after' => $refused->getRetryAfter()];
}
header('Content-Type: application/json');
echo json_encode($answer + ['pid' => getmypid(), 'state' => $gate->state()]);

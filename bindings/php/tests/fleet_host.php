<?php
// One host of a fleet, as its own process (FleetGateTest): its fleet gate
// (argv: Redis URL, gate name, host id) fails 3 times, which opens its gate,
// prints the time it opened (microtime), then stays in the fleet until its
// standard input ends.
declare(strict_types=1);

require __DIR__ . '/../autoload.php';

[, $url, $name, $hostId] = $argv;
$gate = new Respite\Gate(
    ['name' => $name, 'failures_to_enter_recovery' => 3, 'failures_window_seconds' => 10, 'recovery_seconds' => 5],
    logger: static fn () => null,
    fleet: ['fleet_url' => $url, 'fleet_host_id' => $hostId, 'fleet_quorum' => 2, 'fleet_refresh_seconds' => 0.1],
);
usleep(300000); // the thread has joined the fleet
for ($i = 0; $i < 3; $i++) {
    $gate->report('server_error', $gate->acquire());
}
if ($gate->state() !== 'open') {
    fwrite(STDERR, "the host's gate is {$gate->state()}\n");
    exit(1);
}
echo microtime(true), "\n";
stream_get_contents(STDIN);
$gate->close();

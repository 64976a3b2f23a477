"""One host of a fleet, as its own process: its fleet gate (argv: Redis URL,
gate name, host id) fails 3 times, which opens its gate, prints the time it opened
(time.time()), then stays in the fleet until its stdin closes."""
import sys
import time

import respite

url, name, host_id = sys.argv[1:4]
gate = respite.Gate(name=name, failures_to_enter_recovery=3, failures_window_seconds=10, recovery_seconds=5,
                    fleet={"fleet_url": url, "fleet_host_id": host_id, "fleet_quorum": 2,
                           "fleet_refresh_seconds": 0.1})
time.sleep(0.3)  # the thread has joined the fleet
for _ in range(3):
    gate.report("server_error", permit=gate.acquire())
assert gate.state() == "open"
print(time.time(), flush=True)
sys.stdin.read()
gate.close()

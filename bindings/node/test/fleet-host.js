'use strict';
// One host of a fleet, as its own process (child_process.fork): its fleet
// gate (argv: Redis URL, gate name, host id) fails 3 times, which opens its
// gate, sends the time it opened (Date.now()) to the parent, then stays in
// the fleet until the parent disconnects.
const respite = require('..');

const [url, name, fleetHostId] = process.argv.slice(2);
const gate = new respite.Gate({
  name, failuresToEnterRecovery: 3, failuresWindowSeconds: 10, recoverySeconds: 5,
  fleet: { fleetUrl: url, fleetHostId, fleetQuorum: 2, fleetRefreshSeconds: 0.1 },
});
setTimeout(() => { // the thread has joined the fleet
  for (let i = 0; i < 3; i++) gate.report(gate.acquire(), 'server_error');
  if (gate.state() !== 'open') throw new Error(`the host's gate is ${gate.state()}`);
  process.send({ opened: Date.now() });
}, 300);
process.once('disconnect', () => gate.close());

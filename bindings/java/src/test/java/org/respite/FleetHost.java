package org.respite;

import java.io.IOException;

/**
 * One host of a fleet, as its own JVM (FleetGateTest): its fleet gate (args:
 * Redis URL, gate name, host id) fails 3 times, which opens its gate, prints
 * the time it opened (System.currentTimeMillis()), then stays in the fleet
 * until its standard input ends.
 */
public final class FleetHost {
    private FleetHost() {}

    /** The fleet gate every host of the tests makes (quorum 2, refresh 0.1 s). */
    static Gate.Builder fleetGate(String url, String name, String hostId) {
        return Gate.builder().name(name).failuresToEnterRecovery(3).failuresWindowSeconds(10).recoverySeconds(5)
                .fleetUrl(url).fleetHostId(hostId).fleetQuorum(2).fleetRefreshSeconds(0.1);
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        try (Gate gate = fleetGate(args[0], args[1], args[2]).build()) {
            Thread.sleep(300); // the thread has joined the fleet
            for (int i = 0; i < 3; i++) {
                gate.report(gate.acquire(), Outcome.SERVER_ERROR);
            }
            if (gate.state() != GateState.OPEN) {
                throw new IllegalStateException("the host's gate is " + gate.state());
            }
            System.out.println(System.currentTimeMillis());
            System.out.flush();
            while (System.in.read() >= 0) {
                // stays in the fleet until the test closes our input
            }
        }
    }
}

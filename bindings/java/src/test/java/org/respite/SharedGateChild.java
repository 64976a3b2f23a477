package org.respite;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The other JVM of {@link SharedGateProcessTest}: opens the shared gate "cloud" in the file
 * args[0], prints "ready PID", then answers one line per command read from stdin:
 * "fail" reports a server error (answers the state), "call" asks for a permit and reports a
 * success ("admitted", or "refused RETRY_AFTER"), "state" answers the state.
 */
public final class SharedGateChild {
    private SharedGateChild() {}

    static Gate open(String path) {
        return Gate.builder().name("cloud").sharedPath(path).failuresToEnterRecovery(3).failuresWindowSeconds(60)
                .recoverySeconds(30).build();
    }

    public static void main(String[] args) throws Exception {
        try (Gate gate = open(args[0]);
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            System.out.println("ready " + ProcessHandle.current().pid());
            for (String command; (command = in.readLine()) != null; ) {
                System.out.println(switch (command) {
                    case "fail" -> {
                        gate.report(0, Outcome.SERVER_ERROR);
                        yield gate.state().wireName();
                    }
                    case "call" -> {
                        try {
                            gate.success(gate.acquire());
                            yield "admitted";
                        } catch (TemporarilyUnavailableException refused) {
                            yield "refused " + refused.getRetryAfter();
                        }
                    }
                    case "state" -> gate.state().wireName();
                    default -> "unknown command " + command;
                });
            }
        }
    }
}

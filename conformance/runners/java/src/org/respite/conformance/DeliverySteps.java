package org.respite.conformance;

import java.util.Map;

/** Component "delivery": not driven by the Java runner yet. */
final class DeliverySteps implements Runner.Component {
    DeliverySteps(Map<String, Object> scenario) {
        throw new Runner.RunnerError("the Java runner does not drive delivery yet");
    }

    @Override
    public Map<String, Object> step(String action, Object arg, double now) {
        return Runner.runnerError("delivery");
    }
}

package org.respite;

import org.respite.swig.RespiteNative;
import org.respite.swig.respite_engine_stats;
import org.respite.swig.respite_gate_stats;
import org.respite.swig.respite_queue_stats;

/** The core's stats structs as records: one conversion for each, shared by the components and the sender. */
final class NativeStats {
    private NativeStats() {}

    static QueueStats queue(respite_queue_stats s) {
        boolean balanced = RespiteNative.respite_queue_stats_balanced(s) == 1;
        return new QueueStats(s.getAccepted(), s.getDelivered(), s.getDropped_capacity(), s.getExpired(),
                s.getRetries_exhausted(), s.getDiscarded(), s.getPending(), s.getIn_flight(),
                s.getRefused_full(), s.getRefused_too_large(), s.getRefused_closed(), s.getRetried(),
                s.getPending_bytes(), s.getIn_flight_bytes(), s.getLive_bytes(), s.getCapacity(),
                s.getMax_bytes(), Overflow.ofCode(s.getOverflow()), s.getRetry_times(), s.getEvent_ttl(),
                s.getClosed() != 0, balanced);
    }

    static EngineStats engine(respite_engine_stats s) {
        return new EngineStats(s.getSends(), s.getProbes(), s.getSends_failed(), s.getRefusals(),
                s.getEvents_sent(), s.getUnsent(), s.getClosing() != 0, s.getClosed_while_paused() != 0,
                s.getClose_deadline());
    }

    static GateStats gate(respite_gate_stats s) {
        return new GateStats(s.getAdmitted(), s.getRefused(), s.getReported(), s.getCounted_failures(),
                s.getLate(), s.getTrips(), s.getProbes(), s.getProbe_timeouts(), s.getEvents_dropped(),
                s.getGeneration(), s.getWindow_failures(), GateState.ofCode(s.getState()), s.getDelay(),
                s.getUntil());
    }
}

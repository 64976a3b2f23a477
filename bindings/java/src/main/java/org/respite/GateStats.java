package org.respite;

/** A gate's statistics since it was made (reset does not clear them). */
public record GateStats(long admitted, long refused, long reported, long countedFailures, long late, long trips,
                        long probes, long probeTimeouts, long eventsDropped, long generation, int windowFailures,
                        GateState state, double delay, double until) {}

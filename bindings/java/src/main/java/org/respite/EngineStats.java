package org.respite;

/**
 * A delivery engine's figures since it was made (spec section 5).
 *
 * @param sends             batches taken and admitted by the gate
 * @param probes            of which admitted as probes (G7)
 * @param sendsFailed       settled with a transport failure or a status other than 2xx/3xx
 * @param refusals          takes the gate refused
 * @param eventsSent        events in admitted batches
 * @param unsent            events left unsent at close; -1 before {@link Action#DONE}
 * @param closing           whether shutdown was called
 * @param closedWhilePaused whether shutdown found the gate refusing (S5)
 * @param closeDeadline     when draining stops (0 before shutdown)
 */
public record EngineStats(long sends, long probes, long sendsFailed, long refusals, long eventsSent, long unsent,
                          boolean closing, boolean closedWhilePaused, double closeDeadline) {}

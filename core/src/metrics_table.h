/* The one table of metrics (docs/spec.md section 12, M2): every family's
 * name (after the prefix), type, unit, labels and help. The spec's table
 * restates it (tests/unit/test_spec_metrics.c compares). A family with a
 * second label lists its values in metrics.c, next to the figure each
 * value reads. */
#ifndef RESPITE_METRICS_TABLE_H
#define RESPITE_METRICS_TABLE_H

/* X(ID, handle kind, name, type, unit, second label, help); a stateset's
 * second label is named as its family (OpenMetrics), its values the states. */
#define RESPITE_METRICS_TABLE(X)                                                                                      \
    X(GATE_STATE, GATE, "gate_state", STATESET, "", "",                                                        \
      "the gate's state now: 1 for the state it is in (closed, open, probing), 0 for the others")                   \
    X(GATE_ADMITTED, GATE, "gate_admitted", COUNTER, "", "", "checks that admitted a call, probes included")        \
    X(GATE_REFUSED, GATE, "gate_refused", COUNTER, "", "", "checks that refused a call")                             \
    X(GATE_REPORTED, GATE, "gate_reported", COUNTER, "", "", "outcomes reported")                                    \
    X(GATE_SUCCESSES, GATE, "gate_successes", COUNTER, "", "", "outcomes reported as success, late ones included")   \
    X(GATE_COUNTED_FAILURES, GATE, "gate_counted_failures", COUNTER, "", "",                                         \
      "failures that counted against the service")                                                                   \
    X(GATE_LATE_REPORTS, GATE, "gate_late_reports", COUNTER, "", "",                                                 \
      "outcomes ignored: from an earlier generation, while open, or with no probe awaiting them")                   \
    X(GATE_TRIPS, GATE, "gate_trips", COUNTER, "", "", "times the failure window filled while closed")              \
    X(GATE_PAUSES, GATE, "gate_pauses", COUNTER, "", "",                                                             \
      "times the gate opened: a trip, a failed or timed-out probe, a fleet pause")                                  \
    X(GATE_PROBES, GATE, "gate_probes", COUNTER, "", "", "probes admitted")                                          \
    X(GATE_PROBE_TIMEOUTS, GATE, "gate_probe_timeouts", COUNTER, "", "", "probes that timed out")                  \
    X(GATE_EVENTS_DROPPED, GATE, "gate_events_dropped", COUNTER, "", "",                                             \
      "events lost because the gate's event ring was full")                                                         \
    X(GATE_WINDOW_FAILURES, GATE, "gate_window_failures", GAUGE, "", "", "counted failures in the window now")      \
    X(GATE_PROBES_OUTSTANDING, GATE, "gate_probes_outstanding", GAUGE, "", "",                                       \
      "probes admitted whose outcome has not arrived")                                                              \
    X(GATE_GENERATION, GATE, "gate_generation", GAUGE, "", "", "the gate's generation")                             \
    X(GATE_PAUSE_SECONDS, GATE, "gate_pause_seconds", GAUGE, "seconds", "", "the current pause length")             \
    X(GATE_PAUSE_LEFT_SECONDS, GATE, "gate_pause_left_seconds", GAUGE, "seconds", "",                                \
      "seconds until the pause ends: 0 unless open, +Inf until a reset")                                            \
    X(QUEUE_ACCEPTED, QUEUE, "queue_accepted", COUNTER, "", "", "events accepted")                                   \
    X(QUEUE_DELIVERED, QUEUE, "queue_delivered", COUNTER, "", "", "events delivered")                                \
    X(QUEUE_DROPPED, QUEUE, "queue_dropped", COUNTER, "", "reason",                                                  \
      "accepted events that will not be delivered, by reason: capacity, expired, retries_exhausted, discarded")     \
    X(QUEUE_REFUSED, QUEUE, "queue_refused", COUNTER, "", "reason",                                                  \
      "events refused, never accepted, by reason: full, too_large, closed")                                         \
    X(QUEUE_RETRIED, QUEUE, "queue_retried", COUNTER, "", "", "times an event went back to the head to be retried") \
    X(QUEUE_PENDING, QUEUE, "queue_pending", GAUGE, "", "", "events queued, not taken")                              \
    X(QUEUE_IN_FLIGHT, QUEUE, "queue_in_flight", GAUGE, "", "", "events taken, not settled")                         \
    X(QUEUE_PENDING_BYTES, QUEUE, "queue_pending_bytes", GAUGE, "bytes", "", "payload bytes of pending events")      \
    X(QUEUE_IN_FLIGHT_BYTES, QUEUE, "queue_in_flight_bytes", GAUGE, "bytes", "",                                     \
      "payload bytes of events in flight")                                                                          \
    X(QUEUE_CAPACITY, QUEUE, "queue_capacity", GAUGE, "", "", "the most events the queue holds (maximum_capacity)") \
    X(SENDER_BATCHES, SENDER, "sender_batches", COUNTER, "", "", "batches taken and admitted by the gate")           \
    X(SENDER_EVENTS_SENT, SENDER, "sender_events_sent", COUNTER, "", "", "events in admitted batches")              \
    X(SENDER_REQUESTS, SENDER, "sender_requests", COUNTER, "", "", "HTTP requests made, probes included")           \
    X(SENDER_SENT_BYTES, SENDER, "sender_sent_bytes", COUNTER, "bytes", "", "request body bytes sent, after gzip")   \
    X(SENDER_FAILED_BATCHES, SENDER, "sender_failed_batches", COUNTER, "", "",                                       \
      "batches that failed: a transport failure or a response that was not a usable 2xx/3xx")                     \
    X(SENDER_REFUSALS, SENDER, "sender_refusals", COUNTER, "", "", "batches the gate refused to send")               \
    X(SENDER_PAUSED, SENDER, "sender_paused", GAUGE, "", "", "1 while the sender's gate refuses, else 0")

#endif /* RESPITE_METRICS_TABLE_H */

/* The local gate's side of a fleet gate (docs/spec.md section 11, F-rules):
 * what the fleet module's thread (core/src/fleet/) does to a gate, in the
 * state machine's terms, and how it hears of the gate's transitions. The
 * fleet module is a separate library, so these are exported under
 * respite_internal_ names. */
#ifndef RESPITE_GATE_FLEET_H
#define RESPITE_GATE_FLEET_H

#include "internal.h"

/* F5: holds the gate's pause until `until` (a time on the gate's clock) at
 * `now`. Closed: opens it as a fleet pause (a new generation; the event
 * fleet_paused with hosts, window and the pause). Open: its pause now ends
 * at `until`, earlier or later (until <= now ends it now: probing, G7).
 * Probing with no probe outstanding: open again until `until`, a new
 * generation. Probing with a probe out: nothing (this host's probe decides).
 * RESPITE_OK, or an error for a closed gate or a bad time. */
#define respite_gate_fleet_hold respite_internal_gate_fleet_hold
RESPITE_INTERNAL_API int respite_internal_gate_fleet_hold(respite_gate *gate, double until, int64_t hosts,
                                                          double window, double pause, double now,
                                                          respite_error *err);

/* F6: the fleet's probe succeeded on another host: an open or probing gate
 * (or one closed but unconfirmed, G11) recovers as after its own probe (G8:
 * closed, delay R, empty window, the event recovered). */
#define respite_gate_fleet_resume respite_internal_gate_fleet_resume
RESPITE_INTERNAL_API int respite_internal_gate_fleet_resume(respite_gate *gate, double now, respite_error *err);

/* Emits a fleet event (fleet_store_lost, fleet_rejoined, fleet_probing) into the gate's
 * ring at `now`, as the gate's own events are. */
#define respite_gate_fleet_note respite_internal_gate_fleet_note
RESPITE_INTERNAL_API int respite_internal_gate_fleet_note(respite_gate *gate, int type, double now,
                                                          respite_error *err);

/* Called (under the gate's lock, so it must only signal) after every call
 * on this handle that produced events: the fleet thread wakes at once for a
 * local opening instead of at its next refresh. NULL removes it. */
typedef void (*respite_gate_observer)(void *data);
#define respite_gate_set_observer respite_internal_gate_set_observer
RESPITE_INTERNAL_API void respite_internal_gate_set_observer(respite_gate *gate, respite_gate_observer observer,
                                                             void *data);

#endif

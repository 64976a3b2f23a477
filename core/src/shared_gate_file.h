/* The process's side of a shared gate file (docs/spec.md section 9): one
 * attachment per file and gate name in a process, shared by every handle
 * on it, holding the mapping and the process's fast-path stripes. */
#ifndef RESPITE_SHARED_GATE_FILE_H
#define RESPITE_SHARED_GATE_FILE_H

#include "gate_state.h"

typedef struct respite_shared_attachment respite_shared_attachment;

/* Attaches to the slot of the settings' `name` in the file of their
 * `shared_path` (checked gate settings with both set), creating the file
 * or the slot as needed (H1-H4); NULL and err otherwise. */
respite_shared_attachment *respite_shared_attach(const respite_settings *settings, respite_error *err);

gate_state *respite_shared_state(respite_shared_attachment *a);
respite_striped_counters *respite_shared_counters(respite_shared_attachment *a);

/* Adds what this process counted on its fast path since the last fold to
 * the slot's totals (H8). */
void respite_shared_fold(respite_shared_attachment *a);

/* Drops one handle's hold; the last folds and unmaps (H10). */
void respite_shared_detach(respite_shared_attachment *a);

#endif

/* The fast-path protocol (docs/spec.md section 2, K1-K6): what a binding
 * needs to decide a closed admit and a closed, confirmed success without
 * calling into C, with every constant from here. The decisions it allows are
 * the ones admit_fast and report_fast in gate.c make; the rest goes to the
 * core. */
#include "gate_state.h"

#include <stddef.h>

int respite_gate_fast_path(respite_gate *gate, respite_fast_path *out, respite_error *err)
{
    if (!gate)
        return respite_closed(RESPITE_HANDLE_GATE, err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_fast_path (got NULL)");
    respite_striped_counters *counters;
    _Atomic uint64_t *cursor;
    gate_state *s = respite_gate_fast_parts(gate, &counters, &cursor);
    respite_stripe *block = respite_striped_add_block(counters);
    if (!block)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a fast-path counter block");
    out->word_address = (int64_t)(intptr_t)&s->word;
    out->admit_mask = (int64_t)GATE_STATE_MASK;
    out->admit_value = RESPITE_GATE_CLOSED;
    out->permit_mask = (int64_t)~GATE_SLOT_MASK;
    out->success_mask = (int64_t)(GATE_STATE_MASK | GATE_FLAG_UNCONFIRMED);
    out->success_value = RESPITE_GATE_CLOSED;
    out->events_address = (int64_t)(intptr_t)&s->event_seq;
    out->cursor_address = (int64_t)(intptr_t)cursor;
    out->block_address = (int64_t)(intptr_t)block->field;
    out->block_size = (int)sizeof block->field;
    out->admitted_offset = (int)(COUNT_ADMITTED * sizeof block->field[0]);
    out->reported_offset = (int)(COUNT_REPORTED * sizeof block->field[0]);
    return RESPITE_OK;
}

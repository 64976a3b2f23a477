/* Notes the newest gate made while watching (see gate_watch.h). Only the
 * simulate command's own thread makes gates while watching, so plain
 * statics suffice. */
#include "gate_watch.h"

respite_gate *__real_respite_gate_new(const respite_settings *settings, respite_error *err);
void __real_respite_gate_free(respite_gate *gate);
respite_gate *__wrap_respite_gate_new(const respite_settings *settings, respite_error *err);
void __wrap_respite_gate_free(respite_gate *gate);

static int watching;
static respite_gate *current;

respite_gate *__wrap_respite_gate_new(const respite_settings *settings, respite_error *err)
{
    respite_gate *gate = __real_respite_gate_new(settings, err);
    if (watching && gate)
        current = gate;
    return gate;
}

void __wrap_respite_gate_free(respite_gate *gate)
{
    if (gate && gate == current)
        current = NULL;
    __real_respite_gate_free(gate);
}

void gate_watch_start(void)
{
    watching = 1;
    current = NULL;
}

void gate_watch_stop(void)
{
    watching = 0;
    current = NULL;
}

respite_gate *gate_watch_current(void)
{
    return current;
}

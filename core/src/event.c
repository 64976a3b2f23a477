/* Names and log levels of events, shared by every handle that emits them. */
#include "internal.h"

static const char *const event_names[RESPITE_EVENT_TYPE_COUNT] = {
    "recovery_started", "recovery_extended", "probing", "recovered",
    "reset", "send_failed", "unsent_at_close",
};

const char *respite_event_type_name(int type)
{
    if (type < 0 || type >= RESPITE_EVENT_TYPE_COUNT)
        return NULL;
    return event_names[type];
}

int respite_event_is_warning(int type)
{
    switch (type) {
    case RESPITE_EVENT_RECOVERY_STARTED:
    case RESPITE_EVENT_RECOVERY_EXTENDED:
    case RESPITE_EVENT_SEND_FAILED:
    case RESPITE_EVENT_UNSENT_AT_CLOSE:
        return 1;
    default:
        return 0;
    }
}

/* Gate and sender events in words (G18, S6), with the level a binding logs
 * them at: a warning when sending pauses or a pause grows, information when
 * it resumes. */
#include "cli.h"

#include <string.h>

void cli_describe_event(const respite_event *e, char *buf, size_t size)
{
    respite_event_message(e, buf, size);
}

const char *cli_event_level(const respite_event *event)
{
    return respite_event_is_warning(event->type) ? "warning" : "info";
}

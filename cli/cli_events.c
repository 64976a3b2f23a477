/* The level an event is logged at, as the bindings log it: a warning when
 * sending pauses or a pause grows, information when it resumes. The words
 * are the core's (respite_event_message). */
#include "cli.h"

#include <string.h>

const char *cli_event_level(const respite_event *event)
{
    return respite_event_is_warning(event->type) ? "warning" : "info";
}

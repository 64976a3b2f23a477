/* Gate and sender events in words (G18, S6), with the level a binding logs
 * them at: a warning when sending pauses or a pause grows, information when
 * it resumes. */
#include "cli.h"

#include <string.h>

/* The detail of a failed send on one line: a body's line breaks and other
 * control characters become spaces, trailing ones go. */
static void one_line(const char *detail, char *buf, size_t size)
{
    size_t n = 0;
    for (; detail[n] && n + 1 < size; n++)
        buf[n] = (unsigned char)detail[n] < 0x20 || detail[n] == 0x7f ? ' ' : detail[n];
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}

void cli_describe_event(const respite_event *e, char *buf, size_t size)
{
    char detail[RESPITE_EVENT_DETAIL_MAX];
    one_line(e->detail, detail, sizeof detail);
    char pause[32];
    cli_format_seconds(e->pause, pause, sizeof pause);
    switch (e->type) {
    case RESPITE_EVENT_RECOVERY_STARTED:
        snprintf(buf, size, "recovery started: %lld failures within %gs; requests paused for %s",
                 (long long)e->failures, e->window, pause);
        break;
    case RESPITE_EVENT_RECOVERY_EXTENDED:
        snprintf(buf, size, "recovery extended: the probe failed; requests paused for %s", pause);
        break;
    case RESPITE_EVENT_PROBING:
        snprintf(buf, size, "recovery period ended: the next request is a probe");
        break;
    case RESPITE_EVENT_RECOVERED:
        snprintf(buf, size, "recovered: the service answered the probe; requests resume");
        break;
    case RESPITE_EVENT_RESET:
        snprintf(buf, size, "gate reset: requests resume");
        break;
    case RESPITE_EVENT_SEND_FAILED:
        if (e->http_status > 0)
            snprintf(buf, size, "send failed: HTTP %d%s%.120s", e->http_status, detail[0] ? ": " : "", detail);
        else
            snprintf(buf, size, "send failed: %.160s", detail[0] ? detail : "the request did not complete");
        break;
    case RESPITE_EVENT_UNSENT_AT_CLOSE:
        snprintf(buf, size, "closed while paused: %lld event%s not sent", (long long)e->count,
                 e->count == 1 ? "" : "s");
        break;
    default:
        snprintf(buf, size, "%s", respite_event_type_name(e->type) ? respite_event_type_name(e->type) : "event");
        break;
    }
}

const char *cli_event_level(const respite_event *event)
{
    return respite_event_is_warning(event->type) ? "warning" : "info";
}

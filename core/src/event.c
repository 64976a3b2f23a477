/* Names and log levels of events, shared by every handle that emits them. */
#include "internal.h"

#include <math.h>
#include <stdio.h>

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

/* Seconds as the messages show them: to the millisecond, shortest form. */
static char *seconds_text(double seconds, char *buf, size_t size)
{
    if (isinf(seconds)) {
        respite_copy_text(buf, size, "until a reset");
        return buf;
    }
    char number[40];
    respite_format_number(round(seconds * 1000.0) / 1000.0, number, sizeof number);
    snprintf(buf, size, "for %ss", number);
    return buf;
}

/* A failed send's detail on one line: control characters become spaces. */
static void one_line(const char *detail, char *buf, size_t size)
{
    size_t n = 0;
    for (; detail[n] && n + 1 < size; n++)
        buf[n] = (unsigned char)detail[n] < 0x20 || detail[n] == 0x7f ? ' ' : detail[n];
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}

size_t respite_event_message(const respite_event *e, char *buf, size_t size)
{
    char scratch[1];
    if (!buf || size == 0) {
        buf = scratch;
        size = sizeof scratch;
    }
    if (!e)
        return (size_t)snprintf(buf, size, "no event");
    size_t named = 0;
    if (e->source[0]) {
        int prefix = snprintf(buf, size, "%.*s: ", RESPITE_NAME_MAX - 1, e->source);
        named = prefix < 0 ? 0 : (size_t)prefix;
        size_t used = named < size ? named : size - 1;
        buf += used;
        size -= used;
    }
    char pause[48], window[40], detail[RESPITE_EVENT_DETAIL_MAX];
    seconds_text(e->pause, pause, sizeof pause);
    respite_format_number(round(e->window * 1000.0) / 1000.0, window, sizeof window);
    one_line(e->detail, detail, sizeof detail);
    int n;
    switch (e->type) {
    case RESPITE_EVENT_RECOVERY_STARTED:
        n = snprintf(buf, size, "recovery started: %lld failure%s within %ss; requests paused %s",
                     (long long)e->failures, e->failures == 1 ? "" : "s", window, pause);
        break;
    case RESPITE_EVENT_RECOVERY_EXTENDED:
        n = snprintf(buf, size, "recovery extended: the probe failed; requests paused %s", pause);
        break;
    case RESPITE_EVENT_PROBING:
        n = snprintf(buf, size, "recovery period ended: the next request is a probe");
        break;
    case RESPITE_EVENT_RECOVERED:
        n = snprintf(buf, size, "recovered: the service answered; requests resume");
        break;
    case RESPITE_EVENT_RESET:
        n = snprintf(buf, size, "gate reset: requests resume");
        break;
    case RESPITE_EVENT_SEND_FAILED:
        if (e->http_status > 0)
            n = snprintf(buf, size, "send failed: HTTP %d%s%.120s", e->http_status, detail[0] ? ": " : "", detail);
        else
            n = snprintf(buf, size, "send failed: %.160s", detail[0] ? detail : "the request did not complete");
        break;
    case RESPITE_EVENT_UNSENT_AT_CLOSE:
        n = snprintf(buf, size, "closed with %lld event%s not sent", (long long)e->count, e->count == 1 ? "" : "s");
        break;
    default:
        n = snprintf(buf, size, "event of unknown type %d", e->type);
        break;
    }
    return named + (n < 0 ? 0 : (size_t)n);
}

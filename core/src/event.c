/* Names and log levels of events, shared by every handle that emits them. */
#include "internal.h"
#include "utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A failed send's detail in its line: the first 120 characters after an
 * HTTP status, 160 of a transport error. */
#define EVENT_DETAIL_CHARS_MAX 160

static const char *const event_names[RESPITE_EVENT_TYPE_COUNT] = {
    "recovery_started", "recovery_extended", "probing", "recovered",
    "reset", "send_failed", "unsent_at_close", "fleet_paused", "fleet_store_lost", "fleet_rejoined",
    "fleet_probing",
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
    case RESPITE_EVENT_FLEET_PAUSED:
    case RESPITE_EVENT_FLEET_STORE_LOST:
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

/* A failed send's detail on one line, its first max_chars characters:
 * control characters become spaces, bytes that are not UTF-8 '?'. */
static void one_line(const char *detail, int max_chars, char *buf, size_t size)
{
    respite_utf8_printable(buf, size, detail, strnlen(detail, RESPITE_EVENT_DETAIL_MAX), max_chars, "", ' ');
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}

/* The line is made whole, then copied: a short buffer gets it cut at a
 * character boundary, and the length needed is returned. */
size_t respite_event_message(const respite_event *e, char *buf, size_t size)
{
    char line[RESPITE_NAME_MAX + 64 + EVENT_DETAIL_CHARS_MAX * 4 + 1];
    if (!e) {
        respite_copy_text(buf, buf ? size : 0, "no event");
        return strlen("no event");
    }
    char source[RESPITE_NAME_MAX];
    respite_utf8_printable(source, sizeof source, e->source, strnlen(e->source, sizeof e->source), -1, "", '?');
    char pause[48], window[40], detail[EVENT_DETAIL_CHARS_MAX * 4 + 1];
    seconds_text(e->pause, pause, sizeof pause);
    respite_format_number(round(e->window * 1000.0) / 1000.0, window, sizeof window);
    one_line(e->detail, e->http_status > 0 ? 120 : EVENT_DETAIL_CHARS_MAX, detail, sizeof detail);
    int named = source[0] ? snprintf(line, sizeof line, "%s: ", source) : 0;
    char *out = line + named;
    size_t room = sizeof line - (size_t)named;
    switch (e->type) {
    case RESPITE_EVENT_RECOVERY_STARTED:
        snprintf(out, room, "recovery started: %lld failure%s within %ss; requests paused %s",
                 (long long)e->failures, e->failures == 1 ? "" : "s", window, pause);
        break;
    case RESPITE_EVENT_RECOVERY_EXTENDED:
        snprintf(out, room, "recovery extended: the probe failed; requests paused %s", pause);
        break;
    case RESPITE_EVENT_PROBING:
        snprintf(out, room, "recovery period ended: the next request is a probe");
        break;
    case RESPITE_EVENT_RECOVERED:
        snprintf(out, room, "recovered: the service answered; requests resume");
        break;
    case RESPITE_EVENT_RESET:
        snprintf(out, room, "gate reset: requests resume");
        break;
    case RESPITE_EVENT_SEND_FAILED:
        if (e->http_status > 0)
            snprintf(out, room, "send failed: HTTP %d%s%s", e->http_status, detail[0] ? ": " : "", detail);
        else
            snprintf(out, room, "send failed: %s", detail[0] ? detail : "the request did not complete");
        break;
    case RESPITE_EVENT_UNSENT_AT_CLOSE:
        snprintf(out, room, "closed with %lld event%s not sent", (long long)e->count, e->count == 1 ? "" : "s");
        break;
    case RESPITE_EVENT_FLEET_PAUSED:
        snprintf(out, room, "fleet paused: %lld hosts' gates opened within %ss; requests paused %s",
                 (long long)e->count, window, pause);
        break;
    case RESPITE_EVENT_FLEET_STORE_LOST:
        snprintf(out, room, "fleet store unreachable or slow: this host decides on its own gate");
        break;
    case RESPITE_EVENT_FLEET_REJOINED:
        snprintf(out, room, "fleet store answers again: this host rejoined the fleet");
        break;
    case RESPITE_EVENT_FLEET_PROBING:
        snprintf(out, room, "fleet pause ended: another host probes for the fleet; requests resume when it succeeds");
        break;
    default:
        snprintf(out, room, "event of unknown type %d", e->type);
        break;
    }
    if (buf)
        respite_copy_text(buf, size, line);
    return strlen(line);
}

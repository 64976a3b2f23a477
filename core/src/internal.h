/* Helpers shared by the core's source files; not part of the public API. */
#ifndef RESPITE_INTERNAL_H
#define RESPITE_INTERNAL_H

#include "respite.h"
#include "settings_table.h"

#include <stdarg.h>
#include <string.h>

#if defined(__GNUC__)
#define RESPITE_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define RESPITE_PRINTF(fmt, args)
#endif

/* The HTTP module (librespite_http) links librespite and calls the helpers
 * declared RESPITE_INTERNAL_API: they are exported under respite_internal_
 * names, which are no public API, and the sources call them by the short
 * names defined next to them. Every other helper is hidden. */
#define RESPITE_INTERNAL_API RESPITE_API

/* Fills err (if not NULL) with status and a formatted message; returns status. */
#define respite_fail respite_internal_fail
RESPITE_INTERNAL_API int respite_internal_fail(respite_error *err, int status, const char *fmt, ...)
    RESPITE_PRINTF(3, 4);

/* As respite_fail for invalid_setting, also naming the setting. */
#define respite_fail_setting respite_internal_fail_setting
RESPITE_INTERNAL_API int respite_internal_fail_setting(respite_error *err, const char *setting, const char *fmt, ...)
    RESPITE_PRINTF(3, 4);

/* RESPITE_OK when t is a finite time >= 0, else invalid_time naming `what`. */
int respite_check_time(double t, const char *what, respite_error *err);

/* Shortest text that reads back as the same double ("0.1", "60", "nan",
 * "inf"): how every message shows a number. Returns buf. */
#define respite_format_number respite_internal_format_number
RESPITE_INTERNAL_API char *respite_internal_format_number(double value, char *buf, size_t size);

/* Plain decimal notation (E7): an optional '-', digits, optionally '.' and
 * digits, nothing else; read whatever the process's locale. 0 when the text
 * is not that. Settings' text values and Retry-After's delay-seconds. */
#define respite_parse_decimal respite_internal_parse_decimal
RESPITE_INTERNAL_API int respite_internal_parse_decimal(const char *text, double *out);

/* Sleeps for seconds (nothing when not > 0), resuming after signals so the
 * whole wait is slept. */
#define respite_sleep_seconds respite_internal_sleep_seconds
RESPITE_INTERNAL_API void respite_internal_sleep_seconds(double seconds);

/* The max_elapsed_seconds setting of a back-off (0: no limit); retry.c's B16. */
double respite_backoff_max_elapsed(const respite_backoff *backoff);

/* RESPITE_OK when settings (NULL: defaults) are for `component`; otherwise
 * invalid_setting "<argument> must be <component> settings (got <other>
 * settings)", the one wording every constructor uses. */
#define respite_settings_expect respite_internal_settings_expect
RESPITE_INTERNAL_API int respite_internal_settings_expect(const respite_settings *settings, const char *component,
                                                          const char *argument, respite_error *err);

/* Copies at most size-1 bytes of src, never ending inside a UTF-8 character,
 * and terminates. */
#define respite_copy_text respite_internal_copy_text
RESPITE_INTERNAL_API void respite_internal_copy_text(char *dst, size_t size, const char *src);

/* How the core reads its own settings: by id (settings_table.h), never by
 * name, e.g. respite_setting_text(s, RESPITE_SETTING_GATE_NAME). The id must
 * be of the settings' component (respite_settings_expect checked it);
 * settings NULL reads the row's default. Values were checked when set, so
 * every read is in range: integer gives the whole number, flag 0 or 1,
 * choice the word's position (a respite_jitter, a respite_overflow), text
 * the string (valid while the settings live). Exported for the HTTP module. */
#define respite_setting_number respite_internal_setting_number
#define respite_setting_integer respite_internal_setting_integer
#define respite_setting_flag respite_internal_setting_flag
#define respite_setting_choice respite_internal_setting_choice
#define respite_setting_text respite_internal_setting_text
RESPITE_INTERNAL_API double respite_internal_setting_number(const respite_settings *settings, respite_setting_id id);
RESPITE_INTERNAL_API int64_t respite_internal_setting_integer(const respite_settings *settings, respite_setting_id id);
RESPITE_INTERNAL_API int respite_internal_setting_flag(const respite_settings *settings, respite_setting_id id);
RESPITE_INTERNAL_API int respite_internal_setting_choice(const respite_settings *settings, respite_setting_id id);
RESPITE_INTERNAL_API const char *respite_internal_setting_text(const respite_settings *settings,
                                                               respite_setting_id id);

/* Status-returning forms of public functions that return a value, for the
 * core's own callers: the value goes to the out-parameter, and the status
 * never depends on whether err is NULL. */
int respite_gate_wait(respite_gate *gate, double now, double *wait, respite_error *err);
int respite_policy_find_strategy(const respite_policy *policy, int transport_failed, int http_status, int *strategy,
                                 respite_error *err);
int respite_batch_settle_every(respite_batch *batch, int disposition, int *settled, respite_error *err);

/* A batch's payloads as the HTTP module joins them into a body, without a
 * check per call: their sizes together, and payload `index` (0 to the
 * batch's count - 1) with its size. */
#define respite_batch_payload_bytes respite_internal_batch_payload_bytes
#define respite_batch_payload respite_internal_batch_payload
RESPITE_INTERNAL_API int64_t respite_internal_batch_payload_bytes(const respite_batch *batch);
RESPITE_INTERNAL_API const char *respite_internal_batch_payload(const respite_batch *batch, int index, size_t *size);

/* Ends every respite_queue_wait on the queue now (they return 0 unless
 * ready): a sender's flush, whose thread waits for min_entries_per_message
 * events and must look again at once rather than at its next poll. */
#define respite_queue_interrupt respite_internal_queue_interrupt
RESPITE_INTERNAL_API void respite_internal_queue_interrupt(respite_queue *queue);

/* 1 when text starts with prefix (ASCII letters in any case); returns its length then. */
static inline size_t respite_starts_with_nocase(const char *text, const char *prefix)
{
    size_t i = 0;
    for (; prefix[i]; i++) {
        char c = text[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != prefix[i])
            return 0;
    }
    return i;
}

/* An http:// or https:// URL with something after the scheme and no space
 * or control character (curl would refuse it only once the call counted
 * against the gate): the url setting and the client's url argument (C2). */
static inline int respite_url_valid(const char *url)
{
    if (!url)
        return 0;
    size_t scheme = respite_starts_with_nocase(url, "http://");
    if (!scheme)
        scheme = respite_starts_with_nocase(url, "https://");
    if (!scheme || !url[scheme])
        return 0;
    for (const unsigned char *c = (const unsigned char *)url; *c; c++)
        if (*c <= 0x20 || *c == 0x7f)
            return 0;
    return 1;
}

/* An HTTP token (RFC 9110), what a header's name is made of: the sender's
 * add_header and the ids_header setting. */
static inline int respite_header_name_valid(const char *name)
{
    if (!name || !*name)
        return 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p <= 32 || *p >= 127 || strchr("\"(),/:;<=>?@[\\]{}", *p))
            return 0;
    return 1;
}

#endif /* RESPITE_INTERNAL_H */

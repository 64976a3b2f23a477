/* Helpers shared by the HTTP tests: a fault server per test, settings in
 * one line, waiting for a condition, and reading a sender's events. */
#ifndef RESPITE_HTTP_TEST_UTIL_H
#define RESPITE_HTTP_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../support/test_support.h"
#include "fault_server.h"
#include "respite.h"

static inline respite_fault_server *server_start(const char *script)
{
    char error[256];
    respite_fault_server *s = respite_fault_server_start(0, error, sizeof error);
    if (!s)
        fail_msg("fault server: %s", error);
    if (script && respite_fault_server_set_script(s, script, error, sizeof error) != 0)
        fail_msg("script %s: %s", script, error);
    return s;
}

static inline void server_script(respite_fault_server *s, const char *script)
{
    char error[256];
    if (respite_fault_server_set_script(s, script, error, sizeof error) != 0)
        fail_msg("script %s: %s", script, error);
}

/* Asserts the recorded request carries header `name` with exactly `value`. */
static inline void expect_header(const respite_fault_record *rec, const char *name, const char *value)
{
    char got[256];
    if (!respite_fault_record_header(rec, name, got, sizeof got))
        fail_msg("no %s header in the request", name);
    assert_string_equal(got, value);
}

/* Polls cond every 5 ms until it holds or timeout passes; 1 if it held. */
#define WAIT_UNTIL(cond, timeout)                                        \
    ({                                                                   \
        double until_ = respite_now() + (timeout);                       \
        int ok_ = 0;                                                     \
        while (!(ok_ = (cond)) && respite_now() < until_)                \
            sleep_for(0.005);                                            \
        ok_;                                                             \
    })

/* The events a test has read from a sender so far. */
typedef struct event_log {
    respite_event events[512];
    int count;
} event_log;

static inline void events_drain(respite_sender *sender, event_log *log)
{
    respite_event ev;
    while (log->count < 512 && respite_sender_next_event(sender, &ev, NULL) == 1)
        log->events[log->count++] = ev;
}

/* How many logged events have this type. */
static inline int events_count(const event_log *log, int type)
{
    int n = 0;
    for (int i = 0; i < log->count; i++)
        n += log->events[i].type == type;
    return n;
}

/* The k-th (0-based) logged event of this type, or NULL. */
static inline const respite_event *events_nth(const event_log *log, int type, int k)
{
    for (int i = 0; i < log->count; i++)
        if (log->events[i].type == type && k-- == 0)
            return &log->events[i];
    return NULL;
}

/* Waits until `want` events of `type` were logged (reading as it waits). */
static inline int events_wait(respite_sender *sender, event_log *log, int type, int want, double timeout)
{
    double until = respite_now() + timeout;
    for (;;) {
        events_drain(sender, log);
        if (events_count(log, type) >= want)
            return 1;
        if (respite_now() >= until)
            return 0;
        sleep_for(0.002);
    }
}

static inline respite_sender_stats sender_stats(respite_sender *sender)
{
    respite_sender_stats st;
    respite_error err;
    respite_error_clear(&err);
    if (respite_sender_stats_get(sender, &st, &err) != RESPITE_OK)
        fail_msg("stats: %s", err.message);
    return st;
}

#endif

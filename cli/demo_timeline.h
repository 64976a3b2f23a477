/* The demo's live timeline: one row per call or run of alike calls (time,
 * the endpoint's phase, what happened, requests sent, refused without
 * network, gate state, pause left), the gates' events as they happen, and a
 * spinner on a terminal while it waits. Modelled on the manual test tables
 * of the .NET recovery-period change (seed recovery-period-dotnet.txt). */
#ifndef RESPITE_CLI_DEMO_TIMELINE_H
#define RESPITE_CLI_DEMO_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

typedef enum demo_call_kind {
    DEMO_CALL_ANSWERED = 0, /* 2xx: runs of them share a row */
    DEMO_CALL_ALONE = 1,    /* a failure or a probe: a row of its own, saying `what` */
    DEMO_CALL_REFUSED = 2   /* refused by the gate, no network: runs share a row */
} demo_call_kind;

typedef struct demo_timeline {
    FILE *out;
    int tty;               /* draw a spinner line */
    int spinner_shown;
    int spin;
    double run_seconds;    /* a run of alike calls is cut into rows this long */
    /* the run of alike calls not yet printed */
    int pending;
    int kind;
    int64_t count;
    double first_at, last_at, total_elapsed;
    char phase[24], what[96], gate[32], pause[16]; /* as of the run's first call */
    int64_t sent, refused; /* totals after the run */
} demo_timeline;

void demo_timeline_init(demo_timeline *t, FILE *out, double run_seconds);
/* The column headings. */
void demo_timeline_header(demo_timeline *t);

/* One call of the request client at `at` (seconds since the start).
 * what: for DEMO_CALL_ALONE, e.g. "call timed out after 1.00s".
 * elapsed: how long the call took. sent/refused: the totals so far.
 * gate/pause: the gate's state and pause left after the call. */
void demo_timeline_call(demo_timeline *t, double at, int kind, const char *what, double elapsed,
                        const char *phase, int64_t sent, int64_t refused, const char *gate, const char *pause);

/* A line of its own (an event, a phase change): prints the pending row
 * first, so lines stay in time order. */
void demo_timeline_note(demo_timeline *t, double at, const char *level, const char *text);

/* Prints the pending row. */
void demo_timeline_flush(demo_timeline *t);

/* On a terminal: redraws the spinner line with `status` (nothing otherwise). */
void demo_timeline_progress(demo_timeline *t, double at, const char *status);

/* Clears the spinner line (before the summary). */
void demo_timeline_end(demo_timeline *t);

#endif

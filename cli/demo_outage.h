/* The demo's scripted outage: the endpoint is healthy, then times out, then
 * answers 503, then is healthy again. Phases are fixed lengths of time
 * (times the demo's time scale), each a fault-server script. */
#ifndef RESPITE_CLI_DEMO_OUTAGE_H
#define RESPITE_CLI_DEMO_OUTAGE_H

#define DEMO_PHASE_COUNT 4

typedef struct demo_phase {
    const char *name;        /* "healthy", "timeouts", "5xx" */
    double seconds;          /* scaled length */
    char script[64];         /* the fault server's script for it */
    char description[160];   /* for the timeline */
} demo_phase;

typedef struct demo_outage {
    demo_phase phases[DEMO_PHASE_COUNT];
    double hang_seconds;     /* how long a request hangs in the timeouts phase */
} demo_outage;

/* The outage at this time scale; client_timeout_seconds is the client's
 * timeout (requests hang three times as long). */
void demo_outage_init(demo_outage *o, double time_scale, double client_timeout_seconds);

/* The phase at `elapsed` seconds since the start (the last phase lasts on). */
int demo_outage_phase_at(const demo_outage *o, double elapsed);

/* When phase `index` starts, in seconds since the start. */
double demo_outage_phase_start(const demo_outage *o, int index);

/* When the last phase ends: the demo stops calling then. */
double demo_outage_total_seconds(const demo_outage *o);

#endif

/* The demo's scripted outage (see demo_outage.h). */
#include "demo_outage.h"

#include <stdio.h>

void demo_outage_init(demo_outage *o, double time_scale, double client_timeout_seconds)
{
    /* Long enough for the gate to trip (4 failures), refuse, probe, fail a
     * probe in each failure mode, and recover; 40 s at scale 1. */
    static const struct {
        const char *name;
        double seconds;
    } plan[DEMO_PHASE_COUNT] = {{"healthy", 8.0}, {"timeouts", 12.0}, {"5xx", 10.0}, {"healthy", 10.0}};
    o->hang_seconds = 3.0 * client_timeout_seconds;
    for (int i = 0; i < DEMO_PHASE_COUNT; i++) {
        demo_phase *p = &o->phases[i];
        p->name = plan[i].name;
        p->seconds = plan[i].seconds * time_scale;
        if (i == 1) {
            snprintf(p->script, sizeof p->script, "hang for=%.3f", o->hang_seconds);
            snprintf(p->description, sizeof p->description,
                     "now times out: requests hang %.2fs, longer than the client's %.2fs timeout",
                     o->hang_seconds, client_timeout_seconds);
        } else if (i == 2) {
            snprintf(p->script, sizeof p->script, "503");
            snprintf(p->description, sizeof p->description, "now answers 503 Service Unavailable at once");
        } else {
            snprintf(p->script, sizeof p->script, "healthy");
            snprintf(p->description, sizeof p->description, "%s: answers 200 at once",
                     i == 0 ? "healthy" : "healthy again");
        }
    }
}

double demo_outage_phase_start(const demo_outage *o, int index)
{
    double start = 0.0;
    for (int i = 0; i < index && i < DEMO_PHASE_COUNT; i++)
        start += o->phases[i].seconds;
    return start;
}

int demo_outage_phase_at(const demo_outage *o, double elapsed)
{
    for (int i = DEMO_PHASE_COUNT - 1; i > 0; i--)
        if (elapsed >= demo_outage_phase_start(o, i))
            return i;
    return 0;
}

double demo_outage_total_seconds(const demo_outage *o)
{
    return demo_outage_phase_start(o, DEMO_PHASE_COUNT);
}

/* The demo's live timeline (see demo_timeline.h). */
#include "demo_timeline.h"
#include "cli.h"

#include <string.h>

#define ROW_FORMAT "%8s  %-9s %-48s %5s %8s  %-19s %s\n"

void demo_timeline_init(demo_timeline *t, FILE *out, double run_seconds)
{
    memset(t, 0, sizeof *t);
    t->out = out;
    t->tty = cli_is_tty(out);
    t->run_seconds = run_seconds;
}

static void clear_spinner(demo_timeline *t)
{
    if (t->spinner_shown) {
        fputs("\r\033[K", t->out);
        t->spinner_shown = 0;
    }
}

void demo_timeline_header(demo_timeline *t)
{
    fprintf(t->out, ROW_FORMAT, "time", "endpoint", "what happened", "sent", "refused", "gate", "pause");
    fflush(t->out);
}

static void print_row(demo_timeline *t, double at, const char *phase, const char *what, int64_t sent,
                      int64_t refused, const char *gate, const char *pause)
{
    char time_text[24], sent_text[24], refused_text[24];
    snprintf(time_text, sizeof time_text, "%.2fs", at);
    snprintf(sent_text, sizeof sent_text, "%lld", (long long)sent);
    snprintf(refused_text, sizeof refused_text, "%lld", (long long)refused);
    clear_spinner(t);
    fprintf(t->out, ROW_FORMAT, time_text, phase, what, sent_text, refused_text, gate, pause);
    fflush(t->out);
}

void demo_timeline_flush(demo_timeline *t)
{
    if (!t->pending)
        return;
    char what[160], each[32], total[32];
    double mean = t->total_elapsed / (double)t->count;
    if (t->kind == DEMO_CALL_ANSWERED) {
        snprintf(what, sizeof what, "%lld call%s answered 200, %s each", (long long)t->count,
                 t->count == 1 ? "" : "s", cli_format_seconds(mean, each, sizeof each));
    } else if (t->kind == DEMO_CALL_REFUSED) {
        /* refusals take microseconds: say so in microseconds */
        snprintf(total, sizeof total, "%.0f us", t->total_elapsed * 1e6);
        snprintf(what, sizeof what, "(recovery) %lld call%s refused, no request, %s", (long long)t->count,
                 t->count == 1 ? "" : "s",
                 t->total_elapsed < 0.001 ? total : cli_format_seconds(t->total_elapsed, each, sizeof each));
    } else {
        snprintf(what, sizeof what, "%s", t->what);
    }
    print_row(t, t->first_at, t->phase, what, t->sent, t->refused, t->gate, t->pause);
    t->pending = 0;
}

void demo_timeline_call(demo_timeline *t, double at, int kind, const char *what, double elapsed,
                        const char *phase, int64_t sent, int64_t refused, const char *gate, const char *pause)
{
    int joins = t->pending && kind != DEMO_CALL_ALONE && t->kind == kind && strcmp(t->phase, phase) == 0 &&
                strcmp(t->gate, gate) == 0 && at - t->first_at < t->run_seconds;
    if (!joins) {
        demo_timeline_flush(t);
        t->pending = 1;
        t->kind = kind;
        t->count = 0;
        t->total_elapsed = 0.0;
        t->first_at = at;
        snprintf(t->phase, sizeof t->phase, "%s", phase);
        snprintf(t->what, sizeof t->what, "%s", what ? what : "");
        snprintf(t->gate, sizeof t->gate, "%s", gate);
        snprintf(t->pause, sizeof t->pause, "%s", pause);
    }
    t->count++;
    t->total_elapsed += elapsed;
    t->last_at = at;
    t->sent = sent;
    t->refused = refused;
    if (kind == DEMO_CALL_ALONE)
        demo_timeline_flush(t);
}

void demo_timeline_note(demo_timeline *t, double at, const char *level, const char *text)
{
    demo_timeline_flush(t);
    clear_spinner(t);
    fprintf(t->out, "%7.2fs  %-9s %s\n", at, level, text);
    fflush(t->out);
}

void demo_timeline_progress(demo_timeline *t, double at, const char *status)
{
    static const char spinner[] = "|/-\\";
    if (!t->tty)
        return;
    fprintf(t->out, "\r\033[K%c %.1fs  %s", spinner[t->spin++ % 4], at, status);
    fflush(t->out);
    t->spinner_shown = 1;
}

void demo_timeline_end(demo_timeline *t)
{
    demo_timeline_flush(t);
    clear_spinner(t);
}

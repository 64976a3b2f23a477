/* respite send --url URL [--policy FILE] [settings...] - delivers
 * newline-delimited events from standard input with a sender (background
 * thread, gate, queue, delivery policy), waits out the gate's pauses when
 * the policy retries (--wait), then closes it and prints the accounting
 * (D9). With --queue FILE and no --url it only enqueues them into that
 * durable queue, for `respite deliver`. */
#include "cli_sender.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A progress line this often while stderr is a terminal. */
#define PROGRESS_SECONDS 1.0

typedef struct send_options {
    int wait;  /* --wait 1, --no-wait 0, -1: wait when the policy retries */
    int quiet; /* --quiet: no progress lines */
} send_options;

static const char *const own_flags[] = {"wait", "no_wait", "quiet", NULL};

static int own_option(void *ctx, const cli_option *option)
{
    send_options *o = ctx;
    if (strcmp(option->name, "wait") == 0 || strcmp(option->name, "no_wait") == 0)
        o->wait = option->name[0] == 'w';
    else if (strcmp(option->name, "quiet") == 0)
        o->quiet = 1;
    else
        return 0;
    return 1;
}

static void print_help(FILE *out, const cli_sender_setup *setup)
{
    fprintf(out,
            "usage: respite send --url URL [--policy FILE] [--queue FILE] [settings...] < events\n"
            "       respite send --queue FILE [--policy FILE] [queue settings...] < events\n"
            "\n"
            "Reads one event per line from standard input (empty lines are skipped)\n"
            "and delivers them in batches with a background sender: a gate (profile\n"
            "usage_sharing) pauses sending after failures, the delivery policy says\n"
            "which failed events are retried. At the end of input the sender is\n"
            "closed (draining what it can) and the accounting is printed.\n"
            "\n"
            "Without --url, --queue FILE only enqueues the events into that durable\n"
            "queue (an SQLite file, made when missing) for `respite deliver` to send;\n"
            "the file's accounting is printed.\n"
            "\n"
            "  --policy FILE  a delivery policy (JSON; see respite check-policy);\n"
            "                 default @default: discard on any error, capacity 1000\n"
            "  --queue FILE   keep the queue in this file (the setting queue_path)\n"
            "  --wait         at the end of input, wait while the gate pauses sending\n"
            "                 (up to close-timeout-seconds), then close; the default\n"
            "                 when the policy retries some error\n"
            "  --no-wait      close at the end of input: a paused gate leaves the\n"
            "                 queued events unsent (the default when the policy retries\n"
            "                 nothing, as @default does)\n"
            "  --quiet        no progress lines (printed every second on stderr when\n"
            "                 it is a terminal: events accepted, delivered, pending,\n"
            "                 and the gate's state)\n"
            "\n"
            "Settings, by their spec names with dashes (--name VALUE or --name=VALUE;\n"
            "a boolean alone means true). Values are checked by the core.\n");
    cli_sender_print_settings_help(out, setup);
    fprintf(out,
            "\n"
            "exit status: 0 every event read was delivered (enqueued, without --url),\n"
            "             1 some event was not (refused, dropped, discarded or left\n"
            "             unsent), 2 usage error\n");
}

/* -------------------------------------------------------------- input */

typedef struct input_counts {
    int64_t lines;   /* non-empty lines read */
    int64_t empty;   /* empty lines skipped */
    int64_t refused; /* enqueue refused them */
    int64_t refused_by_status[RESPITE_STATUS_COUNT_]; /* [0]: a refusal without a status */
    char first_message[RESPITE_STATUS_COUNT_][RESPITE_ERROR_MESSAGE_MAX]; /* the core's, per status */
} input_counts;

/* Where the lines go: the sender, or (without --url) the queue itself. */
typedef struct target {
    respite_sender *sender;
    respite_queue *queue;
} target;

static int enqueue_one(const target *to, const char *data, size_t size, respite_error *err)
{
    if (to->sender)
        return respite_sender_enqueue(to->sender, data, size, err);
    return respite_queue_enqueue(to->queue, data, size, respite_now(), err);
}

static void enqueue_lines(const target *to, FILE *in, input_counts *counts)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, in)) >= 0) {
        while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
            length--;
        if (length == 0) {
            counts->empty++;
            continue;
        }
        counts->lines++;
        respite_error err = {0};
        if (enqueue_one(to, line, (size_t)length, &err) != RESPITE_OK) {
            counts->refused++;
            int status = err.status > 0 && err.status < RESPITE_STATUS_COUNT_ ? err.status : 0;
            if (counts->refused_by_status[status]++ == 0)
                snprintf(counts->first_message[status], sizeof counts->first_message[status], "%s", err.message);
        }
    }
    free(line);
}

static void print_input(const input_counts *in)
{
    /* One line per reason, with the core's words for the first one (a
     * storage failure's message names the file and SQLite's reason). */
    for (int s = 0; s < RESPITE_STATUS_COUNT_; s++) {
        if (!in->refused_by_status[s])
            continue;
        const char *why = s ? respite_strerror(s) : "no reason given";
        const char *first = in->first_message[s];
        fprintf(stderr, "warning: %lld event%s refused: %s%s%s\n", (long long)in->refused_by_status[s],
                in->refused_by_status[s] == 1 ? "" : "s", why, *first && strcmp(first, why) != 0 ? "; first: " : "",
                *first && strcmp(first, why) != 0 ? first : "");
    }
    printf("events read          %lld", (long long)in->lines);
    if (in->empty)
        printf(" (%lld empty line%s skipped)", (long long)in->empty, in->empty == 1 ? "" : "s");
    printf("\n");
}

/* ---------------------------------------------------------------- main */

/* --queue FILE without --url: into the durable queue, for `respite deliver`. */
static int enqueue_only(cli_sender_setup *setup)
{
    respite_error err = {0};
    respite_queue *queue = respite_queue_new(setup->policy, setup->settings[CLI_QUEUE], &err);
    if (!queue)
        return cli_sender_fail(setup, &err);
    target to = {.queue = queue};
    input_counts counts = {0};
    enqueue_lines(&to, stdin, &counts);
    respite_queue_stats stats;
    int status = CLI_EXIT_USAGE;
    if (respite_queue_stats_get(queue, &stats, &err) != RESPITE_OK) {
        cli_sender_fail(setup, &err);
    } else {
        print_input(&counts);
        printf("enqueued             %lld into %s\n", (long long)(counts.lines - counts.refused),
               cli_sender_text(setup, CLI_QUEUE, "queue_path"));
        printf("the queue file:\n");
        cli_print_accounting(stdout, &stats, NULL, -1);
        status = counts.refused == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILED;
    }
    respite_queue_free(queue);
    return status;
}

/* Events given up (D2, D3, D5, D6). */
static int64_t lost(const respite_queue_stats *q)
{
    return q->dropped_capacity + q->expired + q->retries_exhausted + q->discarded;
}

/* ------------------------------------------------------------ progress */

enum { PHASE_READING, PHASE_WAITING, PHASE_CLOSING };
static const char *const phase_names[] = {"reading input", "draining (waiting out pauses)", "closing"};

typedef struct progress {
    respite_sender *sender;
    double started;
    atomic_int phase;
} progress;

/* "respite send: 2.00s: reading input; accepted 20, delivered 5, pending 15,
 * in flight 0; gate open, 1.20s left" */
static void print_progress(void *arg)
{
    progress *p = arg;
    respite_sender_stats st;
    if (respite_sender_stats_get(p->sender, &st, NULL) != RESPITE_OK)
        return;
    double now = respite_now();
    char elapsed[32], left[32] = "";
    cli_format_seconds(now - p->started, elapsed, sizeof elapsed);
    if (st.gate.state == RESPITE_GATE_OPEN && st.gate.until > now) {
        char span[24];
        snprintf(left, sizeof left, ", %s left", cli_format_seconds(st.gate.until - now, span, sizeof span));
    }
    fprintf(stderr, "respite send: %s: %s; accepted %lld, delivered %lld, pending %lld, in flight %lld; gate %s%s\n",
            elapsed, phase_names[atomic_load(&p->phase)], (long long)st.queue.accepted,
            (long long)st.queue.delivered, (long long)st.queue.pending, (long long)st.queue.in_flight,
            respite_gate_state_name(st.gate.state), left);
}

/* ---------------------------------------------------------------- wait */

static void sleep_seconds(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    nanosleep(&t, NULL);
}

/* --wait: a pause ends on its own (S4) but close gives up at once while
 * paused (S5), so flush, wait out each pause, and flush again, until
 * nothing is left or close_timeout_seconds have passed. */
static void wait_out_pauses(respite_sender *sender, double budget)
{
    double deadline = respite_now() + budget;
    for (;;) {
        double left = deadline - respite_now();
        if (left <= 0)
            return;
        respite_error err = {0};
        if (respite_sender_flush(sender, left, &err) != RESPITE_E_TEMPORARILY_UNAVAILABLE)
            return; /* drained, out of time, or an error that close reports */
        if (isinf(err.retry_after))
            return; /* recover_never: no pause to wait out */
        left = deadline - respite_now();
        /* at least a millisecond: the pause may end between the two reads */
        sleep_seconds(fmax(0.001, fmin(err.retry_after, left)));
    }
}

/* ---------------------------------------------------------------- send */

/* The @default policy discards on any error: say so when it did, and how
 * to retry instead. */
static void note_default_discards(const cli_sender_setup *setup, int64_t discarded)
{
    if (setup->policy_path || discarded <= 0)
        return;
    fprintf(stderr,
            "note: the default policy @default discarded %lld event%s (it discards on any error); to retry "
            "failed events, give --policy FILE with a retry handler, e.g. {\"name\": \"retrying\", "
            "\"maximum_capacity\": 1000, \"retry_times\": 5, \"error_handlers\": [{\"on\": \"any_error\", "
            "\"strategy\": \"retry\"}]} (respite check-policy FILE checks it)\n",
            (long long)discarded, discarded == 1 ? "" : "s");
}

static int send_all(cli_sender_setup *setup, const send_options *options)
{
    respite_error err = {0};
    respite_sender *sender = respite_sender_new(setup->settings[CLI_SENDER], setup->settings[CLI_GATE],
                                                setup->settings[CLI_QUEUE], setup->policy, &err);
    if (!sender)
        return cli_sender_fail(setup, &err);
    /* A queue file may hold earlier events: judge this run by the change. */
    respite_sender_stats before;
    if (respite_sender_stats_get(sender, &before, &err) != RESPITE_OK) {
        respite_sender_free(sender);
        return cli_sender_fail(setup, &err);
    }
    int wait = options->wait >= 0 ? options->wait : setup->policy && respite_policy_retry_times(setup->policy) > 0;
    progress shown = {.sender = sender, .started = respite_now()};
    atomic_init(&shown.phase, PHASE_READING);
    cli_event_printer printer;
    if (!options->quiet && cli_is_tty(stderr))
        cli_event_printer_start_ticking(&printer, sender, PROGRESS_SECONDS, print_progress, &shown);
    else
        cli_event_printer_start(&printer, sender);
    target to = {.sender = sender};
    input_counts counts = {0};
    enqueue_lines(&to, stdin, &counts);
    if (wait) {
        atomic_store(&shown.phase, PHASE_WAITING);
        wait_out_pauses(sender, respite_settings_get_number(setup->settings[CLI_SENDER], "close_timeout_seconds", NULL));
    }
    atomic_store(&shown.phase, PHASE_CLOSING);
    int64_t unsent = respite_sender_close(sender, &err);
    cli_event_printer_stop(&printer);
    respite_sender_stats stats;
    int status = CLI_EXIT_USAGE;
    if (unsent < 0 || respite_sender_stats_get(sender, &stats, &err) != RESPITE_OK) {
        cli_sender_fail(setup, &err);
    } else {
        print_input(&counts);
        cli_print_accounting(stdout, &stats.queue, &stats, unsent);
        const respite_queue_stats *q = &stats.queue;
        note_default_discards(setup, q->discarded - before.queue.discarded);
        int all_delivered = counts.refused == 0 && q->accepted - before.queue.accepted == counts.lines &&
                            lost(q) == lost(&before.queue) && q->pending == 0 && q->in_flight == 0;
        printf("result               %s\n",
               all_delivered ? "every event was delivered" : "some events were NOT delivered");
        status = all_delivered ? CLI_EXIT_OK : CLI_EXIT_FAILED;
    }
    respite_sender_free(sender);
    return status;
}

int cmd_send(int argc, char **argv)
{
    cli_sender_setup setup;
    send_options options = {.wait = -1};
    int help = 0;
    int status = cli_sender_setup_init(&setup, "send");
    if (status == CLI_EXIT_OK)
        status = cli_sender_parse(&setup, argc, argv, own_flags, own_option, &options, &help);
    if (status == CLI_EXIT_OK && help) {
        print_help(stdout, &setup);
    } else if (status == CLI_EXIT_OK) {
        int has_url = *cli_sender_text(&setup, CLI_SENDER, "url") != '\0';
        int has_queue = *cli_sender_text(&setup, CLI_QUEUE, "queue_path") != '\0';
        if (!has_url && !has_queue)
            status = cli_usage_error("send", "--url is required (or --queue FILE alone to enqueue for "
                                             "respite deliver; respite send --help)");
        else if ((status = cli_sender_load_policy(&setup)) == CLI_EXIT_OK)
            status = has_url ? send_all(&setup, &options) : enqueue_only(&setup);
    }
    cli_sender_setup_free(&setup);
    return status;
}

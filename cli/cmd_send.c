/* respite send --url URL [--policy FILE] [settings...] - delivers
 * newline-delimited events from standard input with a sender (background
 * thread, gate, queue, delivery policy), then closes it and prints the
 * accounting (D9). With --queue FILE and no --url it only enqueues them
 * into that durable queue, for `respite deliver`. */
#include "cli_sender.h"

#include <stdlib.h>
#include <string.h>

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

static int send_all(cli_sender_setup *setup)
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
    cli_event_printer printer;
    cli_event_printer_start(&printer, sender);
    target to = {.sender = sender};
    input_counts counts = {0};
    enqueue_lines(&to, stdin, &counts);
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
    int help = 0;
    int status = cli_sender_setup_init(&setup, "send");
    if (status == CLI_EXIT_OK)
        status = cli_sender_parse(&setup, argc, argv, NULL, NULL, NULL, &help);
    if (status == CLI_EXIT_OK && help) {
        print_help(stdout, &setup);
    } else if (status == CLI_EXIT_OK) {
        int has_url = *cli_sender_text(&setup, CLI_SENDER, "url") != '\0';
        int has_queue = *cli_sender_text(&setup, CLI_QUEUE, "queue_path") != '\0';
        if (!has_url && !has_queue)
            status = cli_usage_error("send", "--url is required (or --queue FILE alone to enqueue for "
                                             "respite deliver; respite send --help)");
        else if ((status = cli_sender_load_policy(&setup)) == CLI_EXIT_OK)
            status = has_url ? send_all(&setup) : enqueue_only(&setup);
    }
    cli_sender_setup_free(&setup);
    return status;
}

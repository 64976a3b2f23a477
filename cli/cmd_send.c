/* respite send --url URL [--policy FILE] [settings...] - delivers
 * newline-delimited events from standard input with a sender (background
 * thread, gate, queue, delivery policy), then closes it and prints the
 * accounting (D9). */
#include "cli.h"

#include "respite/http.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The components whose settings `send` takes, in lookup order. */
static const char *const components[] = {"sender", "gate", "queue"};
#define COMPONENT_COUNT 3

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite send --url URL [--policy FILE] [settings...] < events\n"
            "\n"
            "Reads one event per line from standard input (empty lines are skipped)\n"
            "and delivers them in batches with a background sender: a gate (profile\n"
            "usage_sharing) pauses sending after failures, the delivery policy says\n"
            "which failed events are retried. At the end of input the sender is\n"
            "closed (draining what it can) and the accounting is printed.\n"
            "\n"
            "  --policy FILE  a delivery policy (JSON; see respite check-policy);\n"
            "                 default @default: discard on any error, capacity 1000\n"
            "\n"
            "Settings, by their spec names with dashes (--name VALUE or --name=VALUE;\n"
            "a boolean alone means true). Values are checked by the core.\n");
    respite_settings *defaults[COMPONENT_COUNT] = {respite_settings_new("sender", NULL),
                                                   respite_settings_new("usage_sharing", NULL),
                                                   respite_settings_new("queue", NULL)};
    static const char *const titles[COMPONENT_COUNT] = {"sender", "gate (profile usage_sharing)", "queue"};
    for (int c = 0; c < COMPONENT_COUNT; c++) {
        fprintf(out, "\n%s:\n", titles[c]);
        if (defaults[c])
            cli_print_settings_help(out, components[c], defaults[c], components, c);
        respite_settings_free(defaults[c]);
    }
    fprintf(out,
            "\n"
            "exit status: 0 every event read was delivered, 1 some event was not\n"
            "             (refused, dropped, discarded or left unsent), 2 usage error\n");
}

/* The component index a setting belongs to, or -1. */
static int component_of(const char *name)
{
    for (int c = 0; c < COMPONENT_COUNT; c++)
        if (respite_setting_find(components[c], name))
            return c;
    return -1;
}

static int is_boolean_setting(const char *name)
{
    int c = component_of(name);
    return c >= 0 && respite_setting_find(components[c], name)->type == RESPITE_SETTING_BOOLEAN;
}

/* ------------------------------------------------------------- events */

typedef struct event_printer {
    respite_sender *sender;
    atomic_int stop;
    pthread_t thread;
} event_printer;

static void print_events(respite_sender *sender)
{
    respite_event event;
    while (respite_sender_next_event(sender, &event, NULL) == 1) {
        char text[512];
        respite_event_message(&event, text, sizeof text);
        fprintf(stderr, "%s: %s\n", cli_event_level(&event), text);
    }
}

/* Prints the sender's events on stderr as they happen, while the main
 * thread reads standard input. */
static void *event_printer_main(void *arg)
{
    event_printer *p = arg;
    const struct timespec tick = {0, 50 * 1000 * 1000};
    while (!atomic_load(&p->stop)) {
        print_events(p->sender);
        nanosleep(&tick, NULL);
    }
    return NULL;
}

/* -------------------------------------------------------------- input */

typedef struct input_counts {
    int64_t lines;   /* non-empty lines read */
    int64_t empty;   /* empty lines skipped */
    int64_t refused; /* enqueue refused them */
    int64_t refused_by_status[RESPITE_STATUS_COUNT_];
} input_counts;

static void enqueue_lines(respite_sender *sender, FILE *in, input_counts *counts)
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
        if (respite_sender_enqueue(sender, line, (size_t)length, &err) != RESPITE_OK) {
            counts->refused++;
            if (err.status > 0 && err.status < RESPITE_STATUS_COUNT_)
                counts->refused_by_status[err.status]++;
        }
    }
    free(line);
}

/* ---------------------------------------------------------- accounting */

static void print_accounting(const input_counts *in, const respite_sender_stats *st, int64_t unsent)
{
    const respite_queue_stats *q = &st->queue;
    printf("events read          %lld", (long long)in->lines);
    if (in->empty)
        printf(" (%lld empty line%s skipped)", (long long)in->empty, in->empty == 1 ? "" : "s");
    printf("\n");
    printf("accepted             %lld\n", (long long)q->accepted);
    printf("delivered            %lld\n", (long long)q->delivered);
    printf("dropped_capacity     %lld\n", (long long)q->dropped_capacity);
    printf("expired              %lld\n", (long long)q->expired);
    printf("retries_exhausted    %lld\n", (long long)q->retries_exhausted);
    printf("discarded            %lld\n", (long long)q->discarded);
    printf("pending              %lld (not sent at close: %lld)\n", (long long)q->pending, (long long)unsent);
    printf("in_flight            %lld\n", (long long)q->in_flight);
    printf("refused_full         %lld\n", (long long)q->refused_full);
    printf("refused_too_large    %lld\n", (long long)q->refused_too_large);
    printf("refused_closed       %lld\n", (long long)q->refused_closed);
    printf("requests             %lld (%lld failed, %lld probes), %lld bytes sent\n", (long long)st->requests,
           (long long)st->engine.sends_failed, (long long)st->engine.probes, (long long)st->bytes_sent);
    printf("gate                 %s%s\n", respite_gate_state_name(st->gate.state),
           st->paused ? " (paused at close)" : "");
    printf("accounting           %s: accepted = delivered + dropped_capacity + expired + retries_exhausted + "
           "discarded + pending + in_flight\n",
           respite_queue_stats_balanced(q) ? "balanced" : "NOT BALANCED");
}

/* ---------------------------------------------------------------- main */

static int fail_core(const respite_error *err)
{
    fprintf(stderr, "respite send: %s\n", err->message[0] ? err->message : respite_strerror(err->status));
    return CLI_EXIT_USAGE;
}

static respite_policy *load_policy(const char *path, respite_error *err)
{
    size_t size = 0;
    char *text = cli_read_file(path, RESPITE_POLICY_MAX_BYTES + 1, &size); /* P1 */
    if (!text) {
        fprintf(stderr, "respite send: cannot read the policy %s: %s\n", path, strerror(errno));
        return NULL;
    }
    respite_problems *problems = respite_problems_new(err);
    respite_policy *policy = problems ? respite_policy_from_json_n(text, size, problems, err) : NULL;
    free(text);
    if (!policy) {
        if (respite_problems_count(problems) == 0)
            fail_core(err);
        for (int i = 0; i < respite_problems_count(problems); i++) {
            const char *pointer = respite_problems_pointer(problems, i);
            if (respite_problems_line(problems, i) > 0)
                fprintf(stderr, "respite send: %s:%d:%d: %s\n", path, respite_problems_line(problems, i),
                        respite_problems_column(problems, i), respite_problems_message(problems, i));
            else
                fprintf(stderr, "respite send: %s: %s: %s\n", path, *pointer ? pointer : "(document)",
                        respite_problems_message(problems, i));
        }
    }
    respite_problems_free(problems);
    return policy;
}

int cmd_send(int argc, char **argv)
{
    respite_error err = {0};
    respite_settings *settings[COMPONENT_COUNT] = {respite_settings_new("sender", &err),
                                                   respite_settings_new("usage_sharing", &err),
                                                   respite_settings_new("queue", &err)};
    const char *policy_path = NULL;
    int status = CLI_EXIT_USAGE;
    respite_policy *policy = NULL;
    respite_sender *sender = NULL;
    for (int c = 0; c < COMPONENT_COUNT; c++)
        if (!settings[c]) {
            fail_core(&err);
            goto done;
        }
    for (int i = 1; i < argc;) {
        if (cli_is_help(argv[i])) {
            print_help(stdout);
            status = CLI_EXIT_OK;
            goto done;
        }
        cli_option option;
        int used = cli_parse_option(argc, argv, i, is_boolean_setting, &option, "send");
        if (used < 0)
            goto done;
        if (used == 0) {
            cli_usage_error("send", "unexpected argument '%s'; events come from standard input "
                                    "(respite send --help)", argv[i]);
            goto done;
        }
        i += used;
        if (strcmp(option.name, "policy") == 0) {
            policy_path = option.value;
            continue;
        }
        int c = component_of(option.name);
        if (c < 0) {
            cli_usage_error("send", "unknown option --%s (respite send --help lists the settings)", argv[i - used] + 2);
            goto done;
        }
        if (respite_settings_set_text(settings[c], option.name, option.value, &err) != RESPITE_OK) {
            fail_core(&err);
            goto done;
        }
    }
    const char *url = respite_settings_get_text(settings[0], "url", NULL);
    if (!url || !*url) {
        cli_usage_error("send", "--url is required (respite send --help)");
        goto done;
    }
    if (policy_path && !(policy = load_policy(policy_path, &err)))
        goto done;
    sender = respite_sender_new(settings[0], settings[1], settings[2], policy, &err);
    if (!sender) {
        fail_core(&err);
        goto done;
    }

    event_printer printer = {.sender = sender};
    int printing = pthread_create(&printer.thread, NULL, event_printer_main, &printer) == 0;
    input_counts counts = {0};
    enqueue_lines(sender, stdin, &counts);
    int64_t unsent = respite_sender_close(sender, &err);
    if (printing) {
        atomic_store(&printer.stop, 1);
        pthread_join(printer.thread, NULL);
    }
    print_events(sender);
    respite_sender_stats stats;
    if (unsent < 0 || respite_sender_stats_get(sender, &stats, &err) != RESPITE_OK) {
        fail_core(&err);
        goto done;
    }
    for (int s = 1; s < RESPITE_STATUS_COUNT_; s++)
        if (counts.refused_by_status[s])
            fprintf(stderr, "warning: %lld event%s refused: %s\n", (long long)counts.refused_by_status[s],
                    counts.refused_by_status[s] == 1 ? "" : "s", respite_strerror(s));
    print_accounting(&counts, &stats, unsent);
    int all_delivered = counts.refused == 0 && stats.queue.delivered == stats.queue.accepted &&
                        stats.queue.accepted == counts.lines;
    printf("result               %s\n", all_delivered ? "every event was delivered" : "some events were NOT delivered");
    status = all_delivered ? CLI_EXIT_OK : CLI_EXIT_FAILED;
done:
    respite_sender_free(sender);
    respite_policy_free(policy);
    for (int c = 0; c < COMPONENT_COUNT; c++)
        respite_settings_free(settings[c]);
    return status;
}

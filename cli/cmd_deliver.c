/* respite deliver --queue FILE --url URL [--policy FILE] [settings...] - a
 * long-lived worker that sends what other processes enqueue into a durable
 * queue file (PHP-FPM requests, cron jobs, `respite send --queue FILE`).
 *
 * Made for systemd: SIGTERM or SIGINT stops it taking new work; the sender
 * then drains for up to close_timeout_seconds, the accounting goes to
 * stderr and it exits 0. Whatever was not sent stays in the file for the
 * next run. The signals are blocked in every thread and taken with
 * sigtimedwait by the main thread, so no handler runs inside the core. */
#include "cli_sender.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How often the main thread looks at the queue (and for signals). */
#define TICK_SECONDS 0.2
/* The same failure to read the file is repeated at most this often. */
#define WARNING_SECONDS 10.0

typedef struct deliver_options {
    int stats_only;          /* --stats: print the file's accounting, send nothing */
    int until_empty;         /* --until-empty: stop once nothing is pending or in flight */
    double progress_seconds; /* --progress-seconds: a progress line this often; 0: none */
} deliver_options;

static const char *const own_flags[] = {"stats", "until_empty", NULL};

static void print_help(FILE *out, const cli_sender_setup *setup)
{
    fprintf(out,
            "usage: respite deliver --queue FILE --url URL [--policy FILE] [settings...]\n"
            "       respite deliver --queue FILE --stats [--policy FILE]\n"
            "\n"
            "Runs a sender as a long-lived worker over a durable queue: an SQLite file\n"
            "that other processes enqueue into (PHP-FPM requests through the binding's\n"
            "Queue with queue_path, or respite send --queue FILE). Events are taken\n"
            "with a lease, so after a crash (kill -9, power loss with --durability\n"
            "full) the next worker sends them again once lease_seconds pass: every\n"
            "event is delivered at least once; a receiver deduplicates by the ids\n"
            "the sender puts on each request (the sender setting ids_header).\n"
            "\n"
            "SIGTERM or SIGINT: stop taking new work, drain for up to\n"
            "close_timeout_seconds, print the accounting and exit 0; what was not\n"
            "sent stays in the file. Progress and the accounting go to stderr.\n"
            "\n"
            "  --queue FILE            the durable queue (the setting queue_path; made\n"
            "                          when missing)\n"
            "  --policy FILE           a delivery policy (JSON; see respite check-policy);\n"
            "                          default @default: discard on any error\n"
            "  --stats                 print the file's accounting (D9) on stdout and exit:\n"
            "                          0 when it balances, 1 when not\n"
            "  --until-empty           stop by itself once nothing is pending or in flight\n"
            "  --progress-seconds S    a progress line at most this often, when something\n"
            "                          changed (default 10; 0: none)\n"
            "\n"
            "Settings, by their spec names with dashes (--name VALUE or --name=VALUE;\n"
            "a boolean alone means true). Values are checked by the core. deliver's\n"
            "own defaults: min-entries-per-message 1 (send what is there),\n"
            "max-entries-per-message 100.\n");
    cli_sender_print_settings_help(out, setup);
    fprintf(out,
            "\n"
            "exit status: 0 stopped cleanly (by a signal, or --until-empty), 1 the\n"
            "             accounting does not balance, 2 usage error or the queue file\n"
            "             cannot be opened\n");
}

static int own_option(void *ctx, const cli_option *option)
{
    deliver_options *d = ctx;
    int *flag = strcmp(option->name, "stats") == 0         ? &d->stats_only
                : strcmp(option->name, "until_empty") == 0 ? &d->until_empty
                                                           : NULL;
    if (flag) {
        if (strcmp(option->value, "true") != 0 && strcmp(option->value, "false") != 0)
            return cli_usage_error("deliver", "--%s takes no value, or true or false (got '%s')",
                                   flag == &d->stats_only ? "stats" : "until-empty", option->value), -1;
        *flag = strcmp(option->value, "true") == 0;
        return 1;
    }
    if (strcmp(option->name, "progress_seconds") == 0) {
        char *end = NULL;
        errno = 0;
        double value = strtod(option->value, &end);
        if (errno || end == option->value || *end || !(value >= 0 && value <= 86400))
            return cli_usage_error("deliver", "--progress-seconds must be a number from 0 to 86400 (got '%s')",
                                   option->value), -1;
        d->progress_seconds = value;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ --stats */

/* The file's figures, through a handle of its own; RESPITE_OK or err. */
static int read_file_figures(cli_sender_setup *setup, respite_queue_stats *out, respite_error *err)
{
    respite_queue *queue = respite_queue_new(setup->policy, setup->settings[CLI_QUEUE], err);
    if (!queue)
        return err->status;
    int rc = respite_queue_stats_get(queue, out, err);
    respite_queue_free(queue);
    return rc;
}

static int print_file_stats(cli_sender_setup *setup, const char *path)
{
    respite_error err = {0};
    respite_queue_stats q;
    if (read_file_figures(setup, &q, &err) != RESPITE_OK)
        return cli_sender_fail(setup, &err);
    printf("queue                %s\n", path);
    cli_print_accounting(stdout, &q, NULL, -1);
    return respite_queue_stats_balanced(&q) ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}

/* ------------------------------------------------------------- worker */

/* The figures a progress line compares with the last one. */
typedef struct progress {
    double at;
    int64_t delivered, pending, in_flight, requests, failed;
} progress;

static progress progress_of(const respite_sender_stats *st, double now)
{
    progress p = {now, st->queue.delivered, st->queue.pending, st->queue.in_flight, st->requests,
                  st->engine.sends_failed};
    return p;
}

static void print_progress(const progress *last, const progress *now, double started, const respite_sender_stats *st)
{
    char elapsed[32], span[32];
    cli_format_seconds(now->at - started, elapsed, sizeof elapsed);
    cli_format_seconds(now->at - last->at, span, sizeof span);
    fprintf(stderr,
            "respite deliver: %s: delivered %lld (+%lld in %s), pending %lld, in flight %lld; "
            "requests %lld (%lld failed); gate %s\n",
            elapsed, (long long)now->delivered, (long long)(now->delivered - last->delivered), span,
            (long long)now->pending, (long long)now->in_flight, (long long)now->requests, (long long)now->failed,
            respite_gate_state_name(st->gate.state));
}

static struct timespec timespec_of(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    return ts;
}

static int run_worker(cli_sender_setup *setup, const deliver_options *d, const char *path)
{
    /* Blocked before the sender's thread starts, so it inherits the mask
     * and only sigtimedwait below ever takes them. */
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, &old);

    respite_error err = {0};
    int status = CLI_EXIT_USAGE;
    respite_sender *sender = NULL;
    /* The figures as found, before the sender's thread can deliver any. */
    respite_queue_stats found;
    if (read_file_figures(setup, &found, &err) != RESPITE_OK) {
        cli_sender_fail(setup, &err);
        goto done;
    }
    sender = respite_sender_new(setup->settings[CLI_SENDER], setup->settings[CLI_GATE], setup->settings[CLI_QUEUE],
                                setup->policy, &err);
    if (!sender) {
        cli_sender_fail(setup, &err);
        goto done;
    }
    respite_sender_stats st;
    if (respite_sender_stats_get(sender, &st, &err) != RESPITE_OK) {
        cli_sender_fail(setup, &err);
        goto done;
    }
    double started = respite_now();
    int64_t delivered_before = found.delivered;
    fprintf(stderr, "respite deliver: %s: %lld pending, %lld in flight, %lld accepted so far, accounting %s; "
                    "sending to %s\n",
            path, (long long)found.pending, (long long)found.in_flight, (long long)found.accepted,
            respite_queue_stats_balanced(&found) ? "balanced" : "NOT BALANCED",
            cli_sender_text(setup, CLI_SENDER, "url"));
    if (found.corrupt_set_aside) {
        char lost[64] = "an unknown number of";
        if (found.corrupt_lost >= 0)
            snprintf(lost, sizeof lost, "%lld", (long long)found.corrupt_lost);
        fprintf(stderr, "warning: %s was corrupt: set aside as %s.corrupt-<time> with %s events; a new queue "
                        "started\n", path, path, lost);
    }
    cli_event_printer printer;
    cli_event_printer_start(&printer, sender);

    progress last = progress_of(&st, started);
    last.delivered = found.delivered;
    char last_warning[RESPITE_ERROR_MESSAGE_MAX] = "";
    double warned_at = started;
    const char *why = "the queue is empty";
    for (;;) {
        struct timespec tick = timespec_of(TICK_SECONDS);
        int sig = sigtimedwait(&stop, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT) {
            why = sig == SIGTERM ? "SIGTERM" : "SIGINT";
            break;
        }
        double now = respite_now();
        if (respite_sender_stats_get(sender, &st, &err) != RESPITE_OK) {
            /* The file locked by another process too long, a full disk: the
             * sender keeps trying, and so does the worker (calmly). */
            if (strcmp(err.message, last_warning) != 0 || now - warned_at >= WARNING_SECONDS) {
                fprintf(stderr, "warning: %s\n", err.message);
                snprintf(last_warning, sizeof last_warning, "%s", err.message);
                warned_at = now;
            }
            continue;
        }
        if (d->until_empty && st.queue.pending == 0 && st.queue.in_flight == 0)
            break;
        if (d->progress_seconds > 0 && now - last.at >= d->progress_seconds) {
            progress current = progress_of(&st, now);
            if (current.delivered != last.delivered || current.pending != last.pending ||
                current.in_flight != last.in_flight || current.requests != last.requests) {
                print_progress(&last, &current, started, &st);
                last = current;
            }
        }
    }
    char drain[32];
    cli_format_seconds(respite_settings_get_number(setup->settings[CLI_SENDER], "close_timeout_seconds", NULL), drain,
                       sizeof drain);
    fprintf(stderr, "respite deliver: stopping (%s); draining for up to %s\n", why, drain);
    int64_t unsent = respite_sender_close(sender, &err);
    cli_event_printer_stop(&printer);
    if (unsent < 0 || respite_sender_stats_get(sender, &st, &err) != RESPITE_OK) {
        cli_sender_fail(setup, &err);
        goto done;
    }
    char elapsed[32];
    fprintf(stderr, "respite deliver: stopped after %s: delivered %lld in this run; %lld left in %s for the next run\n",
            cli_format_seconds(respite_now() - started, elapsed, sizeof elapsed),
            (long long)(st.queue.delivered - delivered_before), (long long)(st.queue.pending + st.queue.in_flight),
            path);
    st.queue.corrupt_set_aside = found.corrupt_set_aside; /* found by the first handle, before the sender's */
    st.queue.corrupt_lost = found.corrupt_lost;
    cli_print_accounting(stderr, &st.queue, &st, unsent);
    status = respite_queue_stats_balanced(&st.queue) ? CLI_EXIT_OK : CLI_EXIT_FAILED;
done:
    respite_sender_free(sender);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return status;
}

int cmd_deliver(int argc, char **argv)
{
    cli_sender_setup setup;
    deliver_options d = {.progress_seconds = 10};
    int help = 0;
    int status = cli_sender_setup_init(&setup, "deliver");
    respite_error err = {0};
    /* A worker sends what is there rather than wait for a full batch. */
    if (status == CLI_EXIT_OK &&
        (respite_settings_set_text(setup.settings[CLI_SENDER], "min_entries_per_message", "1", &err) != RESPITE_OK ||
         respite_settings_set_text(setup.settings[CLI_SENDER], "max_entries_per_message", "100", &err) != RESPITE_OK))
        status = cli_sender_fail(&setup, &err);
    if (status == CLI_EXIT_OK)
        status = cli_sender_parse(&setup, argc, argv, own_flags, own_option, &d, &help);
    if (status == CLI_EXIT_OK && help) {
        print_help(stdout, &setup);
    } else if (status == CLI_EXIT_OK) {
        const char *path = cli_sender_text(&setup, CLI_QUEUE, "queue_path");
        if (!*path)
            status = cli_usage_error("deliver", "--queue FILE is required (respite deliver --help)");
        else if (!d.stats_only && !*cli_sender_text(&setup, CLI_SENDER, "url"))
            status = cli_usage_error("deliver", "--url is required (respite deliver --help)");
        else if ((status = cli_sender_load_policy(&setup)) == CLI_EXIT_OK)
            status = d.stats_only ? print_file_stats(&setup, path) : run_worker(&setup, &d, path);
    }
    cli_sender_setup_free(&setup);
    return status;
}

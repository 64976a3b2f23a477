/* What `respite send` and `respite deliver` share: the sender, gate and
 * queue settings taken from the command line, the delivery policy, the
 * sender's events printed as they happen, and the D9 accounting. */
#ifndef RESPITE_CLI_SENDER_H
#define RESPITE_CLI_SENDER_H

#include "cli.h"

#include "respite/http.h"

#include <pthread.h>
#include <stdatomic.h>

/* The components whose settings a sender command takes, in lookup order. */
enum { CLI_SENDER = 0, CLI_GATE = 1, CLI_QUEUE = 2, CLI_COMPONENTS = 3 };

typedef struct cli_sender_setup {
    const char *subcommand;                  /* "send", "deliver": for messages */
    respite_settings *settings[CLI_COMPONENTS]; /* sender, gate (usage_sharing), queue */
    const char *policy_path;                 /* --policy, or NULL */
    respite_policy *policy;                  /* loaded by cli_sender_load_policy */
} cli_sender_setup;

/* Makes the default settings. CLI_EXIT_OK, or CLI_EXIT_USAGE (printed). */
int cli_sender_setup_init(cli_sender_setup *setup, const char *subcommand);
void cli_sender_setup_free(cli_sender_setup *setup);

/* A command's own options, before the settings: 1 when it took the option,
 * 0 when not its own, -1 on a usage error (printed). */
typedef int cli_own_option(void *ctx, const cli_option *option);

/* Reads argv[1..]: --help (*help = 1), --policy FILE, --queue FILE (the
 * queue setting queue_path), the command's own options (own_flags: those
 * that take no value, NULL-terminated; own gets them with value "true"),
 * then the settings by their spec names. CLI_EXIT_OK, or CLI_EXIT_USAGE
 * (printed). */
int cli_sender_parse(cli_sender_setup *setup, int argc, char **argv, const char *const *own_flags,
                     cli_own_option own, void *ctx, int *help);

/* Loads --policy when given. CLI_EXIT_OK, or CLI_EXIT_USAGE (printed). */
int cli_sender_load_policy(cli_sender_setup *setup);

/* The text of a setting of a component, "" when unset. */
const char *cli_sender_text(const cli_sender_setup *setup, int component, const char *name);

/* The settings sections of --help: every sender, gate and queue setting
 * with its bounds and default (the defaults of setup when given, so a
 * command's own defaults show). */
void cli_sender_print_settings_help(FILE *out, const cli_sender_setup *setup);

/* "respite <subcommand>: <the core's message>"; returns CLI_EXIT_USAGE. */
int cli_sender_fail(const cli_sender_setup *setup, const respite_error *err);

/* Prints the sender's events on stderr ("warning: ...", "info: ...") from a
 * thread of its own while the command does something else; with a tick,
 * also calls tick(tick_ctx) from that thread every tick_seconds (so a
 * progress line never interleaves with an event's). */
typedef struct cli_event_printer {
    respite_sender *sender;
    atomic_int stop;
    pthread_t thread;
    int running;
    void (*tick)(void *ctx);
    void *tick_ctx;
    double tick_seconds;
} cli_event_printer;

void cli_event_printer_start(cli_event_printer *printer, respite_sender *sender);
void cli_event_printer_start_ticking(cli_event_printer *printer, respite_sender *sender, double tick_seconds,
                                     void (*tick)(void *ctx), void *tick_ctx);
/* Stops the thread, then prints what is left. */
void cli_event_printer_stop(cli_event_printer *printer);

/* The accounting, one heading a line ("accepted             3"): the D9
 * figures of q, then (sender not NULL) its requests and gate, then whether
 * D9 balances. unsent >= 0 adds "(not sent at close: N)" to pending. */
void cli_print_accounting(FILE *out, const respite_queue_stats *q, const respite_sender_stats *sender,
                          int64_t unsent);

#endif

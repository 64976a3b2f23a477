/* The part of `respite send` and `respite deliver` that is the same: their
 * settings, policy, event printing and accounting (cli_sender.h). */
#include "cli_sender.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const components[CLI_COMPONENTS] = {"sender", "gate", "queue"};
/* The gate's settings start from this profile's defaults. */
#define GATE_PROFILE "usage_sharing"

int cli_sender_fail(const cli_sender_setup *setup, const respite_error *err)
{
    fprintf(stderr, "respite %s: %s\n", setup->subcommand,
            err->message[0] ? err->message : respite_strerror(err->status));
    return CLI_EXIT_USAGE;
}

int cli_sender_setup_init(cli_sender_setup *setup, const char *subcommand)
{
    memset(setup, 0, sizeof *setup);
    setup->subcommand = subcommand;
    respite_error err = {0};
    static const char *const makers[CLI_COMPONENTS] = {"sender", GATE_PROFILE, "queue"};
    for (int c = 0; c < CLI_COMPONENTS; c++)
        if (!(setup->settings[c] = respite_settings_new(makers[c], &err)))
            return cli_sender_fail(setup, &err);
    return CLI_EXIT_OK;
}

void cli_sender_setup_free(cli_sender_setup *setup)
{
    respite_policy_free(setup->policy);
    for (int c = 0; c < CLI_COMPONENTS; c++)
        respite_settings_free(setup->settings[c]);
    memset(setup, 0, sizeof *setup);
}

/* The component index a setting belongs to, or -1. */
static int component_of(const char *name)
{
    for (int c = 0; c < CLI_COMPONENTS; c++)
        if (respite_setting_find(components[c], name))
            return c;
    return -1;
}

static int is_boolean_setting(const char *name)
{
    int c = component_of(name);
    return c >= 0 && respite_setting_find(components[c], name)->type == RESPITE_SETTING_BOOLEAN;
}

/* argv[i] is "--flag" for one of flags (by its spec name, with dashes). */
static int is_own_flag(const char *arg, const char *const *flags, cli_option *out)
{
    for (; flags && *flags; flags++) {
        size_t n = strlen(*flags);
        if (strncmp(arg, "--", 2) != 0 || strlen(arg + 2) != n || n >= sizeof out->name)
            continue;
        int same = 1;
        for (size_t k = 0; k < n && same; k++)
            same = (arg[2 + k] == '-' ? '_' : arg[2 + k]) == (*flags)[k];
        if (same) {
            memcpy(out->name, *flags, n + 1);
            out->value = "true";
            return 1;
        }
    }
    return 0;
}

int cli_sender_parse(cli_sender_setup *setup, int argc, char **argv, const char *const *own_flags,
                     cli_own_option own, void *ctx, int *help)
{
    const char *sub = setup->subcommand;
    *help = 0;
    for (int i = 1; i < argc;) {
        if (cli_is_help(argv[i])) {
            *help = 1;
            return CLI_EXIT_OK;
        }
        cli_option option;
        int used = is_own_flag(argv[i], own_flags, &option) ? 1
                                                            : cli_parse_option(argc, argv, i, is_boolean_setting, &option, sub);
        if (used < 0)
            return CLI_EXIT_USAGE;
        if (used == 0)
            return cli_usage_error(sub, "unexpected argument '%s' (respite %s --help)", argv[i], sub);
        const char *given = argv[i] + 2;
        i += used;
        if (strcmp(option.name, "policy") == 0) {
            setup->policy_path = option.value;
            continue;
        }
        if (strcmp(option.name, "queue") == 0)
            snprintf(option.name, sizeof option.name, "queue_path");
        if (strcmp(option.name, "gate_name") == 0) { /* --name is the sender's; the gate's selects its shared slot */
            respite_error err = {0};
            if (respite_settings_set_text(setup->settings[CLI_GATE], "name", option.value, &err) != RESPITE_OK)
                return cli_sender_fail(setup, &err);
            continue;
        }
        int taken = own ? own(ctx, &option) : 0;
        if (taken < 0)
            return CLI_EXIT_USAGE;
        if (taken)
            continue;
        int c = component_of(option.name);
        if (c < 0)
            return cli_usage_error(sub, "unknown option --%.*s (respite %s --help lists the settings)",
                                   (int)strcspn(given, "="), given, sub);
        respite_error err = {0};
        if (respite_settings_set_text(setup->settings[c], option.name, option.value, &err) != RESPITE_OK)
            return cli_sender_fail(setup, &err);
    }
    return CLI_EXIT_OK;
}

const char *cli_sender_text(const cli_sender_setup *setup, int component, const char *name)
{
    const char *text = respite_settings_get_text(setup->settings[component], name, NULL);
    return text ? text : "";
}

int cli_sender_load_policy(cli_sender_setup *setup)
{
    if (!setup->policy_path)
        return CLI_EXIT_OK;
    const char *path = setup->policy_path;
    respite_error err = {0};
    size_t size = 0;
    char *text = cli_read_file(path, RESPITE_POLICY_MAX_BYTES + 1, &size); /* P1 */
    if (!text) {
        fprintf(stderr, "respite %s: cannot read the policy %s: %s\n", setup->subcommand, path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    respite_problems *problems = respite_problems_new(&err);
    setup->policy = problems ? respite_policy_from_json_n(text, size, problems, &err) : NULL;
    free(text);
    if (!setup->policy) {
        if (respite_problems_count(problems) == 0)
            cli_sender_fail(setup, &err);
        for (int i = 0; i < respite_problems_count(problems); i++) {
            const char *pointer = respite_problems_pointer(problems, i);
            if (respite_problems_line(problems, i) > 0)
                fprintf(stderr, "respite %s: %s:%d:%d: %s\n", setup->subcommand, path,
                        respite_problems_line(problems, i), respite_problems_column(problems, i),
                        respite_problems_message(problems, i));
            else
                fprintf(stderr, "respite %s: %s: %s: %s\n", setup->subcommand, path, *pointer ? pointer : "(document)",
                        respite_problems_message(problems, i));
        }
    }
    respite_problems_free(problems);
    return setup->policy ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

void cli_sender_print_settings_help(FILE *out, const cli_sender_setup *setup)
{
    static const char *const titles[CLI_COMPONENTS] = {"sender", "gate (profile " GATE_PROFILE ")", "queue"};
    for (int c = 0; c < CLI_COMPONENTS; c++) {
        fprintf(out, "\n%s:\n", titles[c]);
        if (setup->settings[c])
            cli_print_settings_help(out, components[c], setup->settings[c], components, c);
        if (c == CLI_GATE)
            fprintf(out, "  %-44s %s\n", "--gate-name NAME",
                    "the gate's name (--name is the sender's); with --shared-path, its slot in that file");
    }
}

/* ------------------------------------------------------------- events */

static void print_events(respite_sender *sender)
{
    respite_event event;
    while (respite_sender_next_event(sender, &event, NULL) == 1) {
        char text[512];
        respite_event_message(&event, text, sizeof text);
        fprintf(stderr, "%s: %s\n", cli_event_level(&event), text);
    }
}

static void *event_printer_main(void *arg)
{
    cli_event_printer *p = arg;
    const struct timespec nap = {0, 50 * 1000 * 1000};
    double next_tick = respite_now() + p->tick_seconds;
    while (!atomic_load(&p->stop)) {
        print_events(p->sender);
        if (p->tick && respite_now() >= next_tick) {
            p->tick(p->tick_ctx);
            next_tick += p->tick_seconds;
        }
        nanosleep(&nap, NULL);
    }
    return NULL;
}

void cli_event_printer_start_ticking(cli_event_printer *printer, respite_sender *sender, double tick_seconds,
                                     void (*tick)(void *ctx), void *tick_ctx)
{
    printer->sender = sender;
    printer->tick = tick;
    printer->tick_ctx = tick_ctx;
    printer->tick_seconds = tick_seconds;
    atomic_init(&printer->stop, 0);
    /* Without the thread the events are still printed at stop. */
    printer->running = pthread_create(&printer->thread, NULL, event_printer_main, printer) == 0;
}

void cli_event_printer_start(cli_event_printer *printer, respite_sender *sender)
{
    cli_event_printer_start_ticking(printer, sender, 0, NULL, NULL);
}

void cli_event_printer_stop(cli_event_printer *printer)
{
    if (printer->running) {
        atomic_store(&printer->stop, 1);
        pthread_join(printer->thread, NULL);
        printer->running = 0;
    }
    print_events(printer->sender);
}

/* ---------------------------------------------------------- accounting */

void cli_print_accounting(FILE *out, const respite_queue_stats *q, const respite_sender_stats *st, int64_t unsent)
{
    fprintf(out, "accepted             %lld\n", (long long)q->accepted);
    fprintf(out, "delivered            %lld\n", (long long)q->delivered);
    fprintf(out, "dropped_capacity     %lld\n", (long long)q->dropped_capacity);
    fprintf(out, "expired              %lld\n", (long long)q->expired);
    fprintf(out, "retries_exhausted    %lld\n", (long long)q->retries_exhausted);
    fprintf(out, "discarded            %lld\n", (long long)q->discarded);
    if (unsent >= 0)
        fprintf(out, "pending              %lld (not sent at close: %lld)\n", (long long)q->pending, (long long)unsent);
    else
        fprintf(out, "pending              %lld\n", (long long)q->pending);
    fprintf(out, "in_flight            %lld\n", (long long)q->in_flight);
    fprintf(out, "refused_full         %lld\n", (long long)q->refused_full);
    fprintf(out, "refused_too_large    %lld\n", (long long)q->refused_too_large);
    fprintf(out, "refused_closed       %lld\n", (long long)q->refused_closed);
    if (q->corrupt_set_aside) {
        if (q->corrupt_lost >= 0)
            fprintf(out, "corrupt_set_aside    1 (the file was corrupt: set aside with %lld events)\n",
                    (long long)q->corrupt_lost);
        else
            fprintf(out, "corrupt_set_aside    1 (the file was corrupt: set aside, events lost unknown)\n");
    }
    if (st) {
        fprintf(out, "requests             %lld (%lld failed, %lld probes), %lld bytes sent\n", (long long)st->requests,
                (long long)st->engine.sends_failed, (long long)st->engine.probes, (long long)st->bytes_sent);
        fprintf(out, "gate                 %s%s\n", respite_gate_state_name(st->gate.state),
                st->paused ? " (paused at close)" : "");
    }
    fprintf(out,
            "accounting           %s: accepted = delivered + dropped_capacity + expired + retries_exhausted + "
            "discarded + pending + in_flight\n",
            respite_queue_stats_balanced(q) ? "balanced" : "NOT BALANCED");
}

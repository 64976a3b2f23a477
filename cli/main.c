/* respite - the command-line face of the respite library: a self-contained
 * demo of the recovery gate, a policy checker, a scenario simulator, a
 * sender for newline-delimited events, a worker over a durable queue and a
 * lister of shared gates. */
#include "cli.h"

#include <string.h>

#ifndef RESPITE_VERSION_TEXT
#define RESPITE_VERSION_TEXT "unknown"
#endif

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"demo", cmd_demo, "watch the recovery gate ride out a scripted outage of a local endpoint"},
    {"check-policy", cmd_check_policy, "validate delivery policy files and list every problem"},
    {"simulate", cmd_simulate, "run a conformance scenario and print its timeline"},
    {"send", cmd_send, "deliver newline-delimited events from standard input to a URL"},
    {"deliver", cmd_deliver, "run a sender as a worker over a durable queue file"},
    {"gates", cmd_gates, "list the gates in a shared gate file with their state and counts"},
};

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite <command> [options]\n"
            "\n"
            "respite decides when a client may call a cloud service, when to retry,\n"
            "and what happens to work that could not be delivered.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(out, "  %-14s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out,
            "\n"
            "options:\n"
            "  -h, --help     this help (respite <command> --help: the command's)\n"
            "  --version      the version\n"
            "\n"
            "exit status: 0 success, 1 the check or delivery failed, 2 usage or I/O error\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("respite %s\n", RESPITE_VERSION_TEXT);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "respite: unknown command '%s' (commands: demo, check-policy, simulate, send, deliver, gates; "
                    "respite --help lists them)\n", argv[1]);
    return CLI_EXIT_USAGE;
}

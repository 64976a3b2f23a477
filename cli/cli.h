/* The `respite` command: one subcommand per file (cmd_*.c), helpers shared
 * between them here. Exit codes: 0 success, 1 the checked thing failed
 * (invalid policy, mismatch, undelivered events), 2 usage or I/O errors. */
#ifndef RESPITE_CLI_H
#define RESPITE_CLI_H

#include "respite.h"

#include <stddef.h>
#include <stdio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILED 1
#define CLI_EXIT_USAGE 2

/* Subcommands: argv[0] is the subcommand's name. */
int cmd_demo(int argc, char **argv);
int cmd_check_policy(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_send(int argc, char **argv);
int cmd_deliver(int argc, char **argv);
int cmd_gates(int argc, char **argv);

/* "respite <subcommand>: <message>" on stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *subcommand, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 when arg is -h or --help. */
int cli_is_help(const char *arg);

/* Reads a file (or standard input for "-") into a NUL-terminated buffer the
 * caller frees, stopping after max bytes (so /dev/zero or an endless pipe
 * costs max bytes of memory, not all); *size gets the length read. A caller
 * passes one byte more than it accepts to learn that the input is longer.
 * NULL with errno set. */
char *cli_read_file(const char *path, size_t max, size_t *size);

/* Seconds as text for people: "0.35s", "12.3s", "2m05s"; returns buf. */
char *cli_format_seconds(double seconds, char *buf, size_t size);

/* 1 when the stream is a terminal (progress spinners, colours). */
int cli_is_tty(FILE *stream);

/* Settings given on the command line by their spec names with dashes
 * (--failures-to-enter-recovery 5, --gzip): `--name value`, `--name=value`,
 * or a bare boolean flag meaning true. Writes the spec name
 * (failures_to_enter_recovery) into name. Returns how many argv entries
 * were consumed (1 or 2), 0 when argv[i] is not such an option, -1 when a
 * value is missing (message printed). */
typedef struct cli_option {
    char name[RESPITE_ERROR_SETTING_MAX];
    const char *value;
} cli_option;
int cli_parse_option(int argc, char **argv, int i, int bare_is_true(const char *name), cli_option *out,
                     const char *subcommand);

/* Prints the settings of `component` from the core's table as option help:
 * "  --failures-to-enter-recovery N  counted failures ... (an integer from 1 to 1000; default 10)".
 * Rows whose name a component in `shadowing` (n of them) also has are left
 * out: an option reaches the first component that has it. */
void cli_print_settings_help(FILE *out, const char *component, const respite_settings *defaults,
                             const char *const *shadowing, int n);

/* "warning" or "info" for an event (respite_event_is_warning), as the
 * bindings log it. */
const char *cli_event_level(const respite_event *event);

#endif

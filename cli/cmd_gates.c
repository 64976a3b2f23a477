/* respite gates FILE [--json] - every gate in a shared gate file (spec
 * section 9) with its state and counts, read without attaching to any gate:
 * what an operator runs on a host during an outage. */
#include "cli.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite gates FILE [--json]\n"
            "\n"
            "Lists every gate in a shared gate file (a gate made with the setting\n"
            "shared_path, e.g. /dev/shm/respite-gates) as it is now, without\n"
            "changing it: state, pause left, counted failures in the window,\n"
            "generation, probes outstanding, and the counts since the file was made\n"
            "(admitted, refused, reported, counted failures, trips, probes, probe\n"
            "timeouts). A running process's admitted, refused and reported calls\n"
            "are in them up to its last locked call, statistics read or free\n"
            "(docs/spec.md section 9, H8).\n"
            "\n"
            "options:\n"
            "  --json     one JSON object: {\"file\": FILE, \"gates\": [...]}, a pause\n"
            "             that lasts until a reset as null\n"
            "  -h, --help this help\n"
            "\n"
            "exit status: 0 listed, 2 usage error or a file that is not a readable\n"
            "             shared gate file (the core's message says why)\n");
}

/* Every gate in the file (the buffer grows should a file ever hold more
 * gates than this library's slot count). */
static respite_shared_gate_info *read_gates(const char *path, double now, int *count, respite_error *err)
{
    int capacity = respite_shared_gate_capacity();
    for (;;) {
        respite_shared_gate_info *gates = calloc((size_t)capacity, sizeof *gates);
        if (!gates) {
            snprintf(err->message, sizeof err->message, "out of memory");
            return NULL;
        }
        if (respite_shared_gates_read(path, now, gates, capacity, count, err) != RESPITE_OK) {
            free(gates);
            return NULL;
        }
        if (*count <= capacity)
            return gates;
        free(gates);
        capacity = *count;
    }
}

static const char *state_name(int state)
{
    const char *name = respite_gate_state_name(state);
    return name ? name : "?";
}

static void pause_text(const respite_shared_gate_info *g, char *buf, size_t size)
{
    if (g->state != RESPITE_GATE_OPEN)
        snprintf(buf, size, "-");
    else if (isinf(g->pause_left))
        snprintf(buf, size, "until reset");
    else
        cli_format_seconds(g->pause_left, buf, size);
}

static void print_table(const char *path, const respite_shared_gate_info *gates, int count)
{
    printf("%s: %d gate%s\n", path, count, count == 1 ? "" : "s");
    if (count == 0)
        return;
    int width = 4; /* "NAME" */
    for (int i = 0; i < count; i++) {
        int length = (int)strlen(gates[i].name);
        if (length > width)
            width = length;
    }
    printf("%-*s  %-7s  %11s  %8s  %10s  %6s  %10s  %10s  %10s  %8s  %6s  %6s  %8s\n", width, "NAME", "STATE",
           "PAUSE LEFT", "FAILURES", "GENERATION", "PROBES", "ADMITTED", "REFUSED", "REPORTED", "COUNTED", "TRIPS",
           "PROBED", "TIMEOUTS");
    for (int i = 0; i < count; i++) {
        const respite_shared_gate_info *g = &gates[i];
        char pause[32];
        pause_text(g, pause, sizeof pause);
        printf("%-*s  %-7s  %11s  %8d  %10lld  %6d  %10lld  %10lld  %10lld  %8lld  %6lld  %6lld  %8lld\n", width,
               g->name, state_name(g->state), pause, g->window_failures, (long long)g->generation,
               g->probes_outstanding, (long long)g->stats.admitted, (long long)g->stats.refused,
               (long long)g->stats.reported, (long long)g->stats.counted_failures, (long long)g->stats.trips,
               (long long)g->stats.probes, (long long)g->stats.probe_timeouts);
    }
    printf("FAILURES: counted failures in the window now; PROBES: probes outstanding; PROBED: probes admitted\n");
}

static json_t *gate_json(const respite_shared_gate_info *g)
{
    json_t *pause = g->state == RESPITE_GATE_OPEN && isinf(g->pause_left) ? json_null() : json_real(g->pause_left);
    return json_pack("{s:s, s:s, s:o, s:i, s:I, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "name", g->name, "state",
                     state_name(g->state), "pause_left", pause, "window_failures", g->window_failures, "generation",
                     (json_int_t)g->generation, "probes_outstanding", g->probes_outstanding, "admitted",
                     (json_int_t)g->stats.admitted, "refused", (json_int_t)g->stats.refused, "reported",
                     (json_int_t)g->stats.reported, "counted_failures", (json_int_t)g->stats.counted_failures,
                     "trips", (json_int_t)g->stats.trips, "probes", (json_int_t)g->stats.probes, "probe_timeouts",
                     (json_int_t)g->stats.probe_timeouts);
}

static int print_json(const char *path, const respite_shared_gate_info *gates, int count)
{
    json_t *list = json_array();
    for (int i = 0; i < count; i++)
        json_array_append_new(list, gate_json(&gates[i]));
    json_t *doc = json_pack("{s:s, s:o}", "file", path, "gates", list);
    int rc = doc ? json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
    json_decref(doc);
    if (rc != 0) {
        fprintf(stderr, "respite gates: cannot write the JSON document\n");
        return CLI_EXIT_USAGE;
    }
    printf("\n");
    return CLI_EXIT_OK;
}

int cmd_gates(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, options_end = 0;
    for (int i = 1; i < argc; i++) {
        if (!options_end && cli_is_help(argv[i])) {
            print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (!options_end && strcmp(argv[i], "--") == 0)
            options_end = 1;
        else if (!options_end && strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (!options_end && argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error("gates", "unknown option %s (respite gates --help)", argv[i]);
        else if (path)
            return cli_usage_error("gates", "one FILE only (got %s and %s)", path, argv[i]);
        else
            path = argv[i];
    }
    if (!path) {
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    respite_error err = {0};
    int count = 0;
    respite_shared_gate_info *gates = read_gates(path, respite_now(), &count, &err);
    if (!gates) {
        fprintf(stderr, "respite gates: %s\n", err.message);
        return CLI_EXIT_USAGE;
    }
    int result = CLI_EXIT_OK;
    if (json)
        result = print_json(path, gates, count);
    else
        print_table(path, gates, count);
    free(gates);
    return result;
}

/* respite gates FILE [--fleet URL] [--json | --prometheus] - every gate in a
 * shared gate file (spec section 9) with its state and counts, read without
 * attaching to any gate: what an operator runs on a host during an outage.
 * With --fleet, each gate's fleet state in that Redis too (section 11, F12);
 * with --prometheus, the core's OpenMetrics text (section 12, M8). */
#include "cli.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite gates FILE [--fleet URL] [--json | --prometheus]\n"
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
            "  --fleet URL  also each gate's fleet state in that Redis (a fleet gate,\n"
            "             docs/spec.md section 11; URL as the fleet_url setting):\n"
            "             paused or not, pause left, the host holding the probe, and\n"
            "             the hosts whose gates opened within the window\n"
            "  --json     one JSON object: {\"file\": FILE, \"gates\": [...]}, a pause\n"
            "             that lasts until a reset as null; with --fleet, each gate\n"
            "             has \"fleet\": {...}\n"
            "  --prometheus  the gates as OpenMetrics text (docs/spec.md section 12),\n"
            "             what a Prometheus scrape reads: e.g. written every few\n"
            "             seconds into node_exporter's textfile directory\n"
            "  -h, --help this help\n"
            "\n"
            "exit status: 0 listed, 2 usage error, a file that is not a readable\n"
            "             shared gate file or a fleet that cannot be read (the\n"
            "             core's message says why)\n");
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
    printf("%-*s  %-7s  %11s  %8s  %10s  %6s  %10s  %10s  %10s  %10s  %8s  %6s  %6s  %6s  %8s\n", width, "NAME",
           "STATE", "PAUSE LEFT", "FAILURES", "GENERATION", "PROBES", "ADMITTED", "REFUSED", "REPORTED", "SUCCESSES",
           "COUNTED", "TRIPS", "PAUSES", "PROBED", "TIMEOUTS");
    for (int i = 0; i < count; i++) {
        const respite_shared_gate_info *g = &gates[i];
        char pause[32];
        pause_text(g, pause, sizeof pause);
        printf("%-*s  %-7s  %11s  %8d  %10lld  %6d  %10lld  %10lld  %10lld  %10lld  %8lld  %6lld  %6lld  %6lld"
               "  %8lld\n",
               width, g->name, state_name(g->state), pause, g->window_failures, (long long)g->generation,
               g->probes_outstanding, (long long)g->stats.admitted, (long long)g->stats.refused,
               (long long)g->stats.reported, (long long)g->stats.successes, (long long)g->stats.counted_failures,
               (long long)g->stats.trips, (long long)g->stats.pauses, (long long)g->stats.probes,
               (long long)g->stats.probe_timeouts);
    }
    printf("FAILURES: counted failures in the window now; PROBES: probes outstanding; PAUSES: times it opened; "
           "PROBED: probes admitted\n");
}

/* The fleet state of each gate (F12); NULL and err when one cannot be read. */
static respite_fleet_info *read_fleet(const char *url, const respite_shared_gate_info *gates, int count,
                                      respite_error *err)
{
#ifdef RESPITE_CLI_FLEET
    respite_settings *settings = respite_settings_new("fleet", err);
    if (!settings || respite_settings_set_text(settings, "fleet_url", url, err) != RESPITE_OK) {
        respite_settings_free(settings);
        return NULL;
    }
    respite_fleet_info *fleet = calloc((size_t)(count > 0 ? count : 1), sizeof *fleet);
    for (int i = 0; fleet && i < count; i++) {
        if (respite_fleet_read(settings, gates[i].name, &fleet[i], err) != RESPITE_OK) {
            free(fleet);
            fleet = NULL;
        }
    }
    if (!fleet && !err->message[0])
        snprintf(err->message, sizeof err->message, "out of memory");
    respite_settings_free(settings);
    return fleet;
#else
    (void)url, (void)gates, (void)count;
    snprintf(err->message, sizeof err->message,
             "--fleet: this respite was built without the fleet module (it needs hiredis)");
    return NULL;
#endif
}

static void fleet_hosts_text(const respite_fleet_info *f, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    int listed = f->hosts < RESPITE_FLEET_HOSTS_MAX ? f->hosts : RESPITE_FLEET_HOSTS_MAX;
    for (int i = 0; i < listed && used < size; i++) {
        char ago[32];
        cli_format_seconds(f->host[i].opened_ago, ago, sizeof ago);
        int n = snprintf(buf + used, size - used, "%s%s (%s ago)", i ? ", " : "", f->host[i].id, ago);
        used += n > 0 ? (size_t)n : 0;
    }
    if (listed < f->hosts && used < size)
        snprintf(buf + used, size - used, " and %d more", f->hosts - listed);
    if (!f->hosts)
        snprintf(buf, size, "-");
}

static void print_fleet(const char *url, const respite_shared_gate_info *gates, const respite_fleet_info *fleet,
                        int count)
{
    printf("\nfleet at %s:\n", url);
    int width = 4;
    for (int i = 0; i < count; i++)
        if ((int)strlen(gates[i].name) > width)
            width = (int)strlen(gates[i].name);
    printf("%-*s  %-6s  %11s  %-16s  %s\n", width, "NAME", "FLEET", "PAUSE LEFT", "PROBE HOST", "HOSTS OPENED");
    for (int i = 0; i < count; i++) {
        const respite_fleet_info *f = &fleet[i];
        char pause[32] = "-", hosts[512];
        if (f->paused)
            cli_format_seconds(f->pause_left, pause, sizeof pause);
        fleet_hosts_text(f, hosts, sizeof hosts);
        printf("%-*s  %-6s  %11s  %-16s  %s\n", width, gates[i].name, f->paused ? "paused" : "closed", pause,
               f->probe_host[0] ? f->probe_host : "-", hosts);
    }
    printf("PAUSE LEFT: of the fleet's pause (0ms: it ended, the probe decides); HOSTS OPENED: within the window\n");
}

static json_t *fleet_json(const respite_fleet_info *f)
{
    json_t *hosts = json_array();
    int listed = f->hosts < RESPITE_FLEET_HOSTS_MAX ? f->hosts : RESPITE_FLEET_HOSTS_MAX;
    for (int i = 0; i < listed; i++)
        json_array_append_new(hosts, json_pack("{s:s, s:f}", "host", f->host[i].id, "opened_ago", f->host[i].opened_ago));
    return json_pack("{s:b, s:f, s:f, s:I, s:s?, s:f, s:i, s:o}", "paused", f->paused, "pause_left", f->pause_left,
                     "pause", f->pause, "epoch", (json_int_t)f->epoch, "probe_host",
                     f->probe_host[0] ? f->probe_host : NULL, "lease_left", f->lease_left, "hosts_opened", f->hosts,
                     "hosts", hosts);
}

static json_t *gate_json(const respite_shared_gate_info *g)
{
    json_t *pause = g->state == RESPITE_GATE_OPEN && isinf(g->pause_left) ? json_null() : json_real(g->pause_left);
    return json_pack("{s:s, s:s, s:o, s:i, s:I, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "name", g->name,
                     "state",
                     state_name(g->state), "pause_left", pause, "window_failures", g->window_failures, "generation",
                     (json_int_t)g->generation, "probes_outstanding", g->probes_outstanding, "admitted",
                     (json_int_t)g->stats.admitted, "refused", (json_int_t)g->stats.refused, "reported",
                     (json_int_t)g->stats.reported, "counted_failures", (json_int_t)g->stats.counted_failures,
                     "trips", (json_int_t)g->stats.trips, "probes", (json_int_t)g->stats.probes, "probe_timeouts",
                     (json_int_t)g->stats.probe_timeouts, "successes", (json_int_t)g->stats.successes, "pauses",
                     (json_int_t)g->stats.pauses);
}

/* M8: the core's OpenMetrics text for every gate of the file. */
static int print_prometheus(const respite_shared_gate_info *gates, int count)
{
    respite_error err = {0};
    respite_metrics *metrics = respite_metrics_new(NULL, &err);
    for (int i = 0; metrics && i < count; i++) {
        if (respite_metrics_add_shared_gate(metrics, &gates[i], &err) != RESPITE_OK) {
            respite_metrics_free(metrics);
            metrics = NULL;
        }
    }
    char *text = metrics ? respite_metrics_render(metrics, &err) : NULL;
    respite_metrics_free(metrics);
    if (!text) {
        fprintf(stderr, "respite gates: %s\n", err.message);
        return CLI_EXIT_USAGE;
    }
    fputs(text, stdout);
    respite_free_string(text);
    return CLI_EXIT_OK;
}

static int print_json(const char *path, const respite_shared_gate_info *gates, const respite_fleet_info *fleet,
                      int count)
{
    json_t *list = json_array();
    for (int i = 0; i < count; i++) {
        json_t *gate = gate_json(&gates[i]);
        if (fleet)
            json_object_set_new(gate, "fleet", fleet_json(&fleet[i]));
        json_array_append_new(list, gate);
    }
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
    const char *path = NULL, *url = NULL;
    int json = 0, prometheus = 0, options_end = 0;
    for (int i = 1; i < argc; i++) {
        if (!options_end && cli_is_help(argv[i])) {
            print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (!options_end && strcmp(argv[i], "--") == 0)
            options_end = 1;
        else if (!options_end && strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (!options_end && strcmp(argv[i], "--prometheus") == 0)
            prometheus = 1;
        else if (!options_end && strcmp(argv[i], "--fleet") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("gates", "--fleet needs a Redis URL (respite gates --help)");
            url = argv[++i];
        }
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
    if (json && prometheus)
        return cli_usage_error("gates", "--json and --prometheus: choose one (respite gates --help)");
    if (url && prometheus)
        return cli_usage_error("gates", "--fleet and --prometheus: the fleet's state is not in the metrics");
    respite_error err = {0};
    int count = 0;
    respite_shared_gate_info *gates = read_gates(path, respite_now(), &count, &err);
    if (!gates) {
        fprintf(stderr, "respite gates: %s\n", err.message);
        return CLI_EXIT_USAGE;
    }
    respite_fleet_info *fleet = NULL;
    if (url && !(fleet = read_fleet(url, gates, count, &err))) {
        fprintf(stderr, "respite gates: %s\n", err.message);
        free(gates);
        return CLI_EXIT_USAGE;
    }
    int result = CLI_EXIT_OK;
    if (prometheus) {
        result = print_prometheus(gates, count);
    } else if (json) {
        result = print_json(path, gates, fleet, count);
    } else {
        print_table(path, gates, count);
        if (fleet)
            print_fleet(url, gates, fleet, count);
    }
    free(fleet);
    free(gates);
    return result;
}

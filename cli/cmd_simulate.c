/* respite simulate SCENARIO.json... - runs conformance scenarios through the
 * C runner's components and step reader (conformance/runners/c, compiled in:
 * scenario.c and the *_steps.c files) and prints each
 * step's time, action, result and the gate's state, checking the results
 * against the scenario's expectations with the driver's matching rules. */
#include "cli.h"
#include "scenario_match.h"

#include "runner.h" /* conformance/runners/c: the components */

#include <stdlib.h>
#include <string.h>

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite simulate [--json] SCENARIO.json...\n"
            "\n"
            "Runs a conformance scenario (conformance/scenarios/..., format in\n"
            "conformance/README.md) on its injected clock and prints its timeline:\n"
            "each step's time, action, result, the gate's state and pause left, and\n"
            "whether the result matches the step's \"expect\" (ok / MISMATCH).\n"
            "\n"
            "options:\n"
            "  --json   print the runner's observations (one JSON line per scenario)\n"
            "           instead of the timeline\n"
            "\n"
            "exit status: 0 every result matches, 1 some result does not (or the\n"
            "             scenario cannot be set up), 2 usage error or unreadable file\n");
}

/* Compact JSON for people: reals to 15 digits (0.1, not 0.10000000000000001). */
static char *compact(json_t *value)
{
    return json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

/* "check", "record \"transport\"", "record {\"status\":503} x3". */
static void describe_step(const char *action, json_t *arg, json_int_t repeat, char *buf, size_t size)
{
    int empty = !arg || (json_is_object(arg) && json_object_size(arg) == 0);
    char *text = empty ? NULL : compact(arg);
    int n = snprintf(buf, size, "%s%s%s", action, text ? " " : "", text ? text : "");
    free(text);
    if (repeat != 1 && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " x%lld", (long long)repeat);
}

/* An observation as "key=value key=value" (values compact JSON). */
static void describe_result(json_t *observed, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!json_is_object(observed)) {
        char *text = compact(observed);
        snprintf(buf, size, "%s", text ? text : "?");
        free(text);
        return;
    }
    if (json_object_size(observed) == 0) {
        snprintf(buf, size, "done");
        return;
    }
    size_t used = 0;
    const char *key;
    json_t *value;
    json_object_foreach(observed, key, value) {
        char *text = compact(value);
        int n = snprintf(buf + used, size - used, "%s%s=%s", used ? " " : "", key, text ? text : "?");
        free(text);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

/* The gate the scenario's component made (NULL when none, or closed). Only
 * its statistics are read: asking the component ("state") would move the
 * gate's clock. */
static respite_gate *scenario_gate(const component *c, void *state)
{
    return c->gate ? c->gate(state) : NULL;
}

/* The gate's state and pause left, "" when there is no gate. */
static void describe_gate(respite_gate *gate, double now, char *state, size_t state_size, char *pause,
                          size_t pause_size)
{
    state[0] = pause[0] = '\0';
    respite_gate_stats st;
    if (!gate || respite_gate_stats_get(gate, &st, NULL) != RESPITE_OK)
        return;
    const char *name = respite_gate_state_name(st.state);
    if (st.state == RESPITE_GATE_CLOSED && st.window_failures > 0)
        snprintf(state, state_size, "%s (%d in window)", name, st.window_failures);
    else if (st.state == RESPITE_GATE_PROBING && st.probes_outstanding > 0)
        snprintf(state, state_size, "%s (%d out)", name, st.probes_outstanding);
    else
        snprintf(state, state_size, "%s", name);
    if (st.state == RESPITE_GATE_OPEN) {
        double left = st.until - now;
        if (left > st.delay) /* the gate ran on the real clock (backoff's retry): show the pause */
            left = st.delay;
        if (left > 0)
            cli_format_seconds(left, pause, pause_size);
        else
            snprintf(pause, pause_size, "ended");
    }
}

/* Prints the scenario's heading: id, rules, description and settings. */
static void print_heading(json_t *scenario, const char *path)
{
    const char *id = json_string_value(json_object_get(scenario, "id"));
    printf("%s\n", id ? id : path);
    json_t *rules = json_object_get(scenario, "rules");
    if (json_array_size(rules)) {
        printf("  rules:");
        size_t i;
        json_t *rule;
        json_array_foreach(rules, i, rule) printf("%s %s", i ? "," : "", json_string_value(rule));
        printf("\n");
    }
    const char *text = json_string_value(json_object_get(scenario, "description"));
    if (text)
        printf("  %s\n", text);
    static const char *const setup_keys[] = {"profile", "target", "settings", "policy",
                                             "queue",   "gate",   "engine",   "endpoint"};
    for (size_t k = 0; k < sizeof setup_keys / sizeof setup_keys[0]; k++) {
        json_t *value = json_object_get(scenario, setup_keys[k]);
        if (!value)
            continue;
        char *shown = compact(value);
        printf("  %s: %s\n", setup_keys[k], shown ? shown : "?");
        free(shown);
    }
    printf("\n");
}

typedef struct tally {
    int steps, checked, mismatched;
} tally;

static void print_step(tally *t, int with_gate, respite_gate *gate, double now, const step_parts *parts,
                       json_t *observed, json_t *expect)
{
    char step_text[160], result[2048], state[64], pause[32], reason[512];
    describe_step(parts->action, parts->arg, parts->repeat, step_text, sizeof step_text);
    if (strlen(step_text) > 34)
        strcpy(step_text + 31, "...");
    describe_result(observed, result, sizeof result);
    describe_gate(gate, now, state, sizeof state, pause, sizeof pause);
    int passes = scenario_step_passes(expect, observed, reason, sizeof reason);
    const char *mark = !passes ? "MISMATCH" : expect ? "ok" : "";
    t->steps++;
    if (expect || !passes)
        t->checked++;
    if (!passes)
        t->mismatched++;
    if (with_gate)
        printf("%-8s %9.3f  %-34s %-21s %-8s %s\n", mark, now, step_text, state, pause, result);
    else
        printf("%-8s %9.3f  %-34s %s\n", mark, now, step_text, result);
    if (!passes)
        printf("%-8s %9s  %s\n", "", "", reason);
}

/* Prints the observations as the conformance runner would (one line). */
static void print_json_line(json_t *scenario, json_t *observations, json_t *failure)
{
    json_t *line = json_object();
    json_object_set(line, "id", json_object_get(scenario, "id"));
    if (failure)
        json_object_set(line, "error", failure);
    else
        json_object_set(line, "steps", observations);
    char *text = json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(17));
    printf("%s\n", text ? text : "{}");
    free(text);
    json_decref(line);
}

/* CLI_EXIT_OK when every result matches, _FAILED otherwise, _USAGE when
 * the file cannot be read or is not a scenario. */
static int simulate_file(const char *path, int as_json)
{
    json_error_t parse_error;
    json_t *scenario = json_load_file(path, JSON_REJECT_DUPLICATES, &parse_error);
    if (!scenario) {
        if (parse_error.line > 0)
            fprintf(stderr, "respite simulate: %s:%d:%d: %s\n", path, parse_error.line, parse_error.column,
                    parse_error.text);
        else
            fprintf(stderr, "respite simulate: cannot read %s: %s\n", path, parse_error.text);
        return CLI_EXIT_USAGE;
    }
    const char *name = json_string_value(json_object_get(scenario, "component"));
    const component *c = component_named(name);
    json_t *steps = json_object_get(scenario, "steps");
    if (!c || !json_is_array(steps)) {
        if (!c)
            fprintf(stderr, "respite simulate: %s: component \"%s\" is not one respite simulate runs (settings, "
                            "outcome, gate, backoff, policy, delivery)\n", path, name ? name : "");
        else
            fprintf(stderr, "respite simulate: %s: \"steps\" must be a list\n", path);
        json_decref(scenario);
        return CLI_EXIT_USAGE;
    }
    if (!as_json)
        print_heading(scenario, path);
    json_t *failure = NULL;
    void *state = c->open(scenario, &failure);
    if (!state) {
        /* a scenario may expect its set-up to fail ("expect_error") */
        json_t *expected = json_object_get(scenario, "expect_error"), *error = json_object_get(failure, "error");
        char reason[512];
        int as_expected = expected && error && scenario_match(expected, error, reason, sizeof reason);
        if (as_json) {
            print_json_line(scenario, NULL, error ? error : json_string("could not set up the component"));
        } else {
            char *text = error ? compact(error) : NULL;
            printf("%s the scenario cannot be set up: %s\n", as_expected ? "ok" : "MISMATCH", text ? text : "?");
            free(text);
        }
        json_decref(failure);
        json_decref(scenario);
        return as_expected ? CLI_EXIT_OK : CLI_EXIT_FAILED;
    }
    /* the gate columns only for scenarios that have a gate */
    int with_gate = scenario_gate(c, state) != NULL;
    if (!as_json && with_gate)
        printf("%-8s %9s  %-34s %-21s %-8s %s\n", "expect", "time", "step", "gate", "pause", "result");
    else if (!as_json)
        printf("%-8s %9s  %-34s %s\n", "expect", "time", "step", "result");
    tally t = {0};
    json_t *observations = json_array();
    double now = 0.0;
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step) {
        step_parts parts;
        json_t *observed = run_step(c, state, step, &now, &parts);
        if (as_json) {
            char reason[512];
            if (!scenario_step_passes(json_object_get(step, "expect"), observed, reason, sizeof reason))
                t.mismatched++;
        } else {
            print_step(&t, with_gate, scenario_gate(c, state), now, &parts, observed,
                       json_object_get(step, "expect"));
        }
        json_array_append_new(observations, observed);
    }
    c->close(state);
    if (as_json)
        print_json_line(scenario, observations, NULL);
    else
        printf("\n%d step%s, %d checked: %s\n", t.steps, t.steps == 1 ? "" : "s", t.checked,
               t.mismatched ? "MISMATCH" : "every result matches");
    if (!as_json && t.mismatched)
        printf("%d step%s did not match the scenario's expectations\n", t.mismatched,
               t.mismatched == 1 ? "" : "s");
    json_decref(observations);
    json_decref(scenario);
    return t.mismatched ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

int cmd_simulate(int argc, char **argv)
{
    const char **files = calloc((size_t)argc, sizeof *files);
    int count = 0, as_json = 0, options_end = 0;
    for (int i = 1; i < argc; i++) {
        if (!options_end && cli_is_help(argv[i])) {
            free(files);
            print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (!options_end && strcmp(argv[i], "--") == 0)
            options_end = 1;
        else if (!options_end && strcmp(argv[i], "--json") == 0)
            as_json = 1;
        else if (!options_end && argv[i][0] == '-')
            return free(files), cli_usage_error("simulate", "unknown option %s (respite simulate --help)", argv[i]);
        else
            files[count++] = argv[i];
    }
    if (count == 0) {
        free(files);
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    int worst = CLI_EXIT_OK;
    for (int i = 0; i < count; i++) {
        if (i > 0 && !as_json)
            printf("\n");
        int result = simulate_file(files[i], as_json);
        if (result > worst)
            worst = result;
    }
    free(files);
    return worst;
}

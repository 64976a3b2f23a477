/* respite demo - runs, with nothing to install or start: two embedded HTTP
 * endpoints (the fault server library) go through a scripted outage while a
 * request client behind a gate and a background sender call them; prints a
 * live timeline and a closing summary, and checks the figures agree. */
#include "cli.h"
#include "demo_outage.h"
#include "demo_timeline.h"

#include "fault_server.h"
#include "respite/http.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TIME_SCALE_MIN 0.01
#define TIME_SCALE_MAX 10.0
#define EVENTS_PER_ROUND 2

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite demo [--time-scale X]\n"
            "\n"
            "Starts two HTTP endpoints on 127.0.0.1 that go through a scripted outage\n"
            "(healthy, then requests time out, then 503s, then healthy again) and\n"
            "drives a request client behind a recovery gate and a background sender\n"
            "against them. Prints a live timeline (time, endpoint, what happened,\n"
            "requests sent, refused without network, gate state, pause left), the\n"
            "gates' events as they happen, and a summary: calls made and refused, the\n"
            "time refused calls took against what waiting for timeouts would have\n"
            "cost, and the sender's accounting. Takes about 45 seconds.\n"
            "\n"
            "options:\n"
            "  --time-scale X   multiply every pause, timeout and phase by X\n"
            "                   (%g to %g; 0.1 runs in about 5 seconds)\n"
            "\n"
            "exit status: 0 the demo ran and its figures agree, 1 they do not,\n"
            "             2 usage error or an endpoint could not start\n",
            TIME_SCALE_MIN, TIME_SCALE_MAX);
}

/* ------------------------------------------------------------- setup */

typedef struct demo_config {
    double scale;
    double client_timeout;   /* seconds */
    double round_seconds;    /* a visitor calls this often */
    int failures;            /* the client's gate: N */
    double window, recovery; /* W, R */
    int sender_failures;     /* the sender's gate (usage_sharing): N */
    double sender_recovery, sender_max_recovery;
} demo_config;

static void config_init(demo_config *c, double scale)
{
    c->scale = scale;
    c->client_timeout = 1.0 * scale;
    c->round_seconds = 0.5 * scale;
    c->failures = 4;
    c->window = 30.0 * scale;
    c->recovery = 5.0 * scale;
    c->sender_failures = 3;
    c->sender_recovery = 2.0 * scale;
    c->sender_max_recovery = 8.0 * scale;
}

typedef struct demo {
    demo_config config;
    demo_outage outage;
    demo_timeline timeline;
    double t0;
    respite_fault_server *service, *events;
    respite_gate *gate;
    respite_client *client;
    respite_sender *sender;
    char service_url[256];
    /* client figures */
    int64_t calls, answered, timed_out, errors, refused, other_failures;
    double refused_seconds, answered_seconds, error_seconds;
    int64_t refused_in_phase[DEMO_PHASE_COUNT];
    int64_t events_made;
    respite_event held[2]; /* events taken, not yet printed: the client's gate's, the sender's */
    int held_event[2];
} demo;

static int fail_setting(const respite_error *err)
{
    fprintf(stderr, "respite demo: %s\n", err->message);
    return -1;
}

static respite_settings *settings_with(const char *component, respite_error *err)
{
    return respite_settings_new(component, err);
}

static int make_client(demo *d, respite_error *err)
{
    demo_config *c = &d->config;
    respite_settings *gate = settings_with("cloud_request", err);
    respite_settings *client = gate ? settings_with("client", err) : NULL;
    int rc = client && respite_settings_set_integer(gate, "failures_to_enter_recovery", c->failures, err) == 0 &&
             respite_settings_set_number(gate, "failures_window_seconds", c->window, err) == 0 &&
             respite_settings_set_number(gate, "recovery_seconds", c->recovery, err) == 0 &&
             respite_settings_set_number(client, "timeout_seconds", c->client_timeout, err) == 0 &&
             (d->gate = respite_gate_new(gate, err)) != NULL &&
             (d->client = respite_client_new(client, d->gate, NULL, err)) != NULL ? 0 : fail_setting(err);
    respite_settings_free(gate);
    respite_settings_free(client);
    return rc;
}

static int make_sender(demo *d, respite_error *err)
{
    demo_config *c = &d->config;
    char url[256];
    snprintf(url, sizeof url, "%susage", respite_fault_server_url(d->events));
    respite_settings *sender = settings_with("sender", err);
    respite_settings *gate = sender ? settings_with("usage_sharing", err) : NULL;
    /* every failure is retried, so nothing is lost to the outage */
    respite_policy *policy = respite_policy_from_json(
        "{\"name\": \"demo\", \"maximum_capacity\": 1000, \"retry_times\": 100,"
        " \"error_handlers\": [{\"on\": \"any_error\", \"strategy\": \"retry\"}]}",
        NULL, err);
    int rc = gate && policy && respite_settings_set_text(sender, "url", url, err) == 0 &&
             respite_settings_set_integer(sender, "min_entries_per_message", 5, err) == 0 &&
             respite_settings_set_integer(sender, "max_entries_per_message", 20, err) == 0 &&
             respite_settings_set_number(sender, "timeout_seconds", c->client_timeout, err) == 0 &&
             respite_settings_set_text(sender, "prefix", "[", err) == 0 &&
             respite_settings_set_text(sender, "separator", ",", err) == 0 &&
             respite_settings_set_text(sender, "suffix", "]", err) == 0 &&
             respite_settings_set_integer(gate, "failures_to_enter_recovery", c->sender_failures, err) == 0 &&
             respite_settings_set_number(gate, "failures_window_seconds", c->window, err) == 0 &&
             respite_settings_set_number(gate, "recovery_seconds", c->sender_recovery, err) == 0 &&
             respite_settings_set_number(gate, "max_recovery_seconds", c->sender_max_recovery, err) == 0 &&
             (d->sender = respite_sender_new(sender, gate, NULL, policy, err)) != NULL ? 0 : fail_setting(err);
    respite_policy_free(policy);
    respite_settings_free(sender);
    respite_settings_free(gate);
    return rc;
}

static int start_endpoints(demo *d)
{
    char error[256] = "";
    d->service = respite_fault_server_start(0, error, sizeof error);
    if (d->service)
        d->events = respite_fault_server_start(0, error, sizeof error);
    if (!d->service || !d->events) {
        fprintf(stderr, "respite demo: cannot start an endpoint on 127.0.0.1: %s\n", error);
        return -1;
    }
    snprintf(d->service_url, sizeof d->service_url, "%sdetect", respite_fault_server_url(d->service));
    return 0;
}

static int set_phase(demo *d, int phase)
{
    char error[256] = "";
    const char *script = d->outage.phases[phase].script;
    if (respite_fault_server_set_script(d->service, script, error, sizeof error) != 0 ||
        respite_fault_server_set_script(d->events, script, error, sizeof error) != 0) {
        fprintf(stderr, "respite demo: the endpoint refused the script \"%s\": %s\n", script, error);
        return -1;
    }
    return 0;
}

/* ----------------------------------------------------------- the run */

static double elapsed(const demo *d)
{
    return respite_now() - d->t0;
}

static void sleep_seconds(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    nanosleep(&ts, NULL);
}

/* The client's gate as "closed", "closed (2 in window)", "open", "probing",
 * and the pause left ("" when none). */
static void describe_gate(demo *d, char *state, size_t state_size, char *pause, size_t pause_size)
{
    double now = respite_now();
    int s = respite_gate_get_state(d->gate, now, NULL);
    respite_gate_stats st;
    respite_gate_stats_get(d->gate, &st, NULL);
    if (s == RESPITE_GATE_CLOSED && st.window_failures > 0)
        snprintf(state, state_size, "closed (%d in window)", st.window_failures);
    else
        snprintf(state, state_size, "%s", s >= 0 ? respite_gate_state_name(s) : "?");
    double left = respite_gate_retry_after(d->gate, now, NULL);
    if (s == RESPITE_GATE_OPEN && left > 0)
        cli_format_seconds(left, pause, pause_size);
    else
        pause[0] = '\0';
}

static void print_event(demo *d, const char *who, const respite_event *e)
{
    char text[512], line[600];
    respite_event_message(e, text, sizeof text);
    snprintf(line, sizeof line, "%s %s", who, text);
    demo_timeline_note(&d->timeline, e->at - d->t0, cli_event_level(e), line);
}

/* Takes the next event of source 0 (the client's gate) or 1 (the sender)
 * into its held slot; 1 when one is held. */
static int hold_event(demo *d, int source)
{
    if (!d->held_event[source])
        d->held_event[source] = (source == 0 ? respite_gate_next_event(d->gate, &d->held[0], NULL)
                                             : respite_sender_next_event(d->sender, &d->held[1], NULL)) == 1;
    return d->held_event[source];
}

/* Prints, in time order, the events of the client's gate and the sender
 * that happened before `before` (seconds since the start; INFINITY: all),
 * so they come before the row of a call that ended then. */
static void print_events(demo *d, double before)
{
    for (;;) {
        int gate = hold_event(d, 0), sender = hold_event(d, 1);
        int source = gate && (!sender || d->held[0].at <= d->held[1].at) ? 0 : sender ? 1 : -1;
        if (source < 0 || d->held[source].at - d->t0 >= before)
            return;
        print_event(d, source == 0 ? "requests:" : "sender:  ", &d->held[source]);
        d->held_event[source] = 0;
    }
}

static void enqueue_usage(demo *d, double at)
{
    for (int i = 0; i < EVENTS_PER_ROUND; i++) {
        char event[96];
        int n = snprintf(event, sizeof event, "{\"visit\":%lld,\"at\":%.3f}", (long long)++d->events_made, at);
        respite_error err = {0};
        if (respite_sender_enqueue(d->sender, event, (size_t)n, &err) != RESPITE_OK)
            demo_timeline_note(&d->timeline, at, "warning", err.message);
    }
}

/* One visitor's call through the gate, and its row. */
static void call_once(demo *d, int phase)
{
    respite_gate_stats before, after;
    respite_gate_stats_get(d->gate, &before, NULL);
    double at = elapsed(d);
    respite_error err = {0};
    double start = respite_now();
    respite_response *r = respite_client_request(d->client, "GET", d->service_url, NULL, NULL, 0, &err);
    double took = respite_now() - start;
    respite_gate_stats_get(d->gate, &after, NULL);
    const char *who = after.probes > before.probes ? "probe" : "call";
    char what[160] = "", state[32], pause[16], t[32];
    int kind = DEMO_CALL_ALONE;
    cli_format_seconds(took, t, sizeof t);
    if (!r && err.status == RESPITE_E_TEMPORARILY_UNAVAILABLE) {
        kind = DEMO_CALL_REFUSED;
        d->refused++;
        d->refused_seconds += took;
        d->refused_in_phase[phase]++;
    } else if (!r) {
        d->other_failures++;
        snprintf(what, sizeof what, "call failed: %.100s", err.message);
    } else {
        d->calls++;
        int status = respite_response_status(r);
        if (status >= 200 && status < 300) {
            d->answered++;
            d->answered_seconds += took;
            if (after.probes > before.probes)
                snprintf(what, sizeof what, "probe answered %d in %s: the service is back", status, t);
            else
                kind = DEMO_CALL_ANSWERED;
        } else if (status == 0) {
            d->timed_out++;
            snprintf(what, sizeof what, "%s timed out after %s", who, t);
        } else {
            d->errors++;
            d->error_seconds += took;
            snprintf(what, sizeof what, "%s answered %d in %s", who, status, t);
        }
        respite_response_free(r);
    }
    describe_gate(d, state, sizeof state, pause, sizeof pause);
    print_events(d, at + took);
    /* the row's time is when the outcome was known, as the gate saw it */
    demo_timeline_call(&d->timeline, at + took, kind, what, took, d->outage.phases[phase].name, d->calls, d->refused,
                       state, pause);
}

static void show_progress(demo *d, int phase)
{
    if (!d->timeline.tty)
        return;
    char state[32], pause[16], status[160];
    describe_gate(d, state, sizeof state, pause, sizeof pause);
    respite_sender_stats st;
    int64_t queued = respite_sender_stats_get(d->sender, &st, NULL) == RESPITE_OK ? st.queue.pending : -1;
    snprintf(status, sizeof status, "endpoint %s | gate %s%s%s | sender: %lld queued", d->outage.phases[phase].name,
             state, *pause ? " " : "", pause, (long long)queued);
    demo_timeline_progress(&d->timeline, elapsed(d), status);
}

static int run_outage(demo *d)
{
    int phase = -1;
    double total = demo_outage_total_seconds(&d->outage);
    double at;
    while ((at = elapsed(d)) < total) {
        int p = demo_outage_phase_at(&d->outage, at);
        if (p != phase) {
            if (set_phase(d, p) != 0)
                return -1;
            phase = p;
            demo_timeline_note(&d->timeline, at, "endpoint", d->outage.phases[p].description);
        }
        enqueue_usage(d, at);
        call_once(d, p);
        print_events(d, INFINITY);
        show_progress(d, p);
        sleep_seconds(at + d->config.round_seconds - elapsed(d));
    }
    return 0;
}

/* ----------------------------------------------------------- summary */

/* Events the endpoint received in requests it answered 2xx (each body is
 * the JSON array the sender's prefix/separator/suffix make). */
static int64_t events_received(respite_fault_server *server)
{
    int64_t events = 0;
    size_t count = respite_fault_server_record_count(server);
    for (size_t i = 0; i < count; i++) {
        respite_fault_record record;
        if (respite_fault_server_record(server, i, &record) != 0)
            continue;
        if (record.status >= 200 && record.status < 300 && record.body) {
            json_error_t error;
            json_t *batch = json_loadb(record.body, record.body_size, 0, &error);
            events += json_is_array(batch) ? (int64_t)json_array_size(batch) : 0;
            json_decref(batch);
        }
        respite_fault_record_clear(&record);
    }
    return events;
}

typedef struct check_list {
    int failed;
} check_list;

static void check(check_list *c, int ok, const char *what)
{
    printf("  %-6s %s\n", ok ? "ok" : "FAILED", what);
    if (!ok)
        c->failed++;
}

/* What the refused calls would have cost without the gate: each waits as
 * long as calls in its phase took (the whole timeout while timing out). */
static double cost_without_gate(const demo *d)
{
    double answered = d->answered ? d->answered_seconds / (double)d->answered : 0.0;
    double error = d->errors ? d->error_seconds / (double)d->errors : answered;
    double cost = 0.0;
    for (int p = 0; p < DEMO_PHASE_COUNT; p++) {
        const char *name = d->outage.phases[p].name;
        double each = strcmp(name, "timeouts") == 0 ? d->config.client_timeout
                      : strcmp(name, "5xx") == 0    ? error
                                                    : answered;
        cost += (double)d->refused_in_phase[p] * each;
    }
    return cost;
}

static int print_summary(demo *d, int64_t unsent)
{
    respite_sender_stats st;
    respite_error err = {0};
    if (respite_sender_stats_get(d->sender, &st, &err) != RESPITE_OK) {
        fprintf(stderr, "respite demo: %s\n", err.message);
        return -1;
    }
    const respite_queue_stats *q = &st.queue;
    demo_config *c = &d->config;
    char a[32], b[32], e[32];
    int64_t service_requests = respite_fault_server_requests(d->service);
    int64_t usage_requests = respite_fault_server_requests(d->events);
    int64_t usage_events = events_received(d->events);
    double without = cost_without_gate(d);

    printf("\nSummary\n");
    printf("  request client (gate: %d failures within %s pause calls for %s)\n", c->failures,
           cli_format_seconds(c->window, a, sizeof a), cli_format_seconds(c->recovery, b, sizeof b));
    printf("    calls made           %lld: %lld answered 200, %lld timed out, %lld answered 5xx\n",
           (long long)d->calls, (long long)d->answered, (long long)d->timed_out, (long long)d->errors);
    printf("    calls refused        %lld, without a request: %.3f ms in all\n", (long long)d->refused,
           d->refused_seconds * 1e3);
    printf("    without the gate     those %lld calls would have waited about %s (%lld during timeouts, %s each)\n",
           (long long)d->refused, cli_format_seconds(without, e, sizeof e),
           (long long)d->refused_in_phase[1], cli_format_seconds(c->client_timeout, a, sizeof a));
    printf("    endpoint received    %lld requests\n", (long long)service_requests);
    printf("  sender (gate profile usage_sharing: %d failed sends pause sending for %s, doubling up to %s)\n",
           c->sender_failures, cli_format_seconds(c->sender_recovery, a, sizeof a),
           cli_format_seconds(c->sender_max_recovery, b, sizeof b));
    printf("    events accepted      %lld (of %lld made)\n", (long long)q->accepted, (long long)d->events_made);
    printf("    events delivered     %lld\n", (long long)q->delivered);
    printf("    dropped by reason    dropped_capacity %lld, expired %lld, retries_exhausted %lld, discarded %lld\n",
           (long long)q->dropped_capacity, (long long)q->expired, (long long)q->retries_exhausted,
           (long long)q->discarded);
    printf("    refused              refused_full %lld, refused_too_large %lld, refused_closed %lld\n",
           (long long)q->refused_full, (long long)q->refused_too_large, (long long)q->refused_closed);
    printf("    left over            pending %lld, in_flight %lld (not sent at close: %lld)\n",
           (long long)q->pending, (long long)q->in_flight, (long long)unsent);
    printf("    requests             %lld (%lld failed, %lld probes), %lld retried events\n",
           (long long)st.requests, (long long)st.engine.sends_failed, (long long)st.engine.probes,
           (long long)q->retried);
    printf("    endpoint received    %lld requests, %lld events in requests it answered 200\n",
           (long long)usage_requests, (long long)usage_events);

    printf("\nChecks\n");
    check_list checks = {0};
    check(&checks, d->refused > 0, "the gate refused calls during the outage");
    check(&checks, service_requests == d->calls + d->other_failures,
          "refused calls sent nothing: the endpoint received exactly the calls made");
    check(&checks, d->refused_seconds < without, "refusing took less time than waiting would have");
    check(&checks, respite_queue_stats_balanced(q),
          "accounting balanced: accepted = delivered + dropped + expired + retries_exhausted + discarded + "
          "pending + in_flight");
    check(&checks, q->accepted == d->events_made && q->delivered == q->accepted, "every event made was delivered");
    check(&checks, usage_events == q->delivered, "the endpoint received every delivered event");
    return checks.failed ? 1 : 0;
}

/* ------------------------------------------------------------- main */

static int parse_scale(const char *text, double *scale)
{
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end || !(value >= TIME_SCALE_MIN && value <= TIME_SCALE_MAX))
        return cli_usage_error("demo", "--time-scale must be a number from %g to %g (got %s)", TIME_SCALE_MIN,
                               TIME_SCALE_MAX, text);
    *scale = value;
    return 0;
}

static void print_intro(demo *d)
{
    demo_config *c = &d->config;
    char a[32], b[32], e[32], f[32];
    printf("respite demo: a request client and a sender ride out an outage of their endpoints\n");
    printf("  client: one call every %s, timeout %s; its gate opens after %d failures within %s and\n"
           "          pauses calls for %s, then lets one probe through\n",
           cli_format_seconds(c->round_seconds, a, sizeof a), cli_format_seconds(c->client_timeout, b, sizeof b),
           c->failures, cli_format_seconds(c->window, e, sizeof e), cli_format_seconds(c->recovery, f, sizeof f));
    printf("  sender: %d usage events per call, sent in batches of 5 to 20; retries every failed event\n",
           EVENTS_PER_ROUND);
    printf("  endpoints: %s and %susage\n", d->service_url, respite_fault_server_url(d->events));
    printf("  running for about %s (time scale %g)\n\n",
           cli_format_seconds(demo_outage_total_seconds(&d->outage), a, sizeof a), c->scale);
    demo_timeline_header(&d->timeline);
    fflush(stdout);
}

int cmd_demo(int argc, char **argv)
{
    double scale = 1.0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--time-scale") == 0 && i + 1 < argc) {
            if (parse_scale(argv[++i], &scale))
                return CLI_EXIT_USAGE;
        } else if (strncmp(argv[i], "--time-scale=", 13) == 0) {
            if (parse_scale(argv[i] + 13, &scale))
                return CLI_EXIT_USAGE;
        } else {
            return cli_usage_error("demo", "%s %s (respite demo --help)",
                                   strcmp(argv[i], "--time-scale") == 0 ? "a value is needed after" : "unknown option",
                                   argv[i]);
        }
    }
    demo d = {0};
    config_init(&d.config, scale);
    demo_outage_init(&d.outage, scale, d.config.client_timeout);
    demo_timeline_init(&d.timeline, stdout, 4.0 * scale);
    respite_error err = {0};
    int status = CLI_EXIT_USAGE;
    if (start_endpoints(&d) != 0 || make_client(&d, &err) != 0 || make_sender(&d, &err) != 0)
        goto done;
    print_intro(&d);
    d.t0 = respite_now();
    if (run_outage(&d) != 0)
        goto done;
    demo_timeline_note(&d.timeline, elapsed(&d), "sender", "closing: sending what is still queued");
    int64_t unsent = respite_sender_close(d.sender, &err);
    print_events(&d, INFINITY);
    demo_timeline_note(&d.timeline, elapsed(&d), "sender", "closed");
    demo_timeline_end(&d.timeline);
    int failed = print_summary(&d, unsent);
    status = failed < 0 ? CLI_EXIT_USAGE : failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
done:
    respite_sender_free(d.sender);
    respite_client_free(d.client);
    respite_gate_free(d.gate);
    respite_fault_server_stop(d.service);
    respite_fault_server_stop(d.events);
    return status;
}

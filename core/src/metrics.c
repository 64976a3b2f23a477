/* Metrics snapshots (docs/spec.md section 12): each add reads a handle's
 * statistics once and turns them into samples of the families in
 * metrics_table.h; samples are kept family by family (a stable sort on
 * first read), the order the OpenMetrics text needs (metrics_render.c). */
#include "internal.h"
#include "metrics_table.h"
#include "utf8.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { KIND_GATE, KIND_QUEUE, KIND_SENDER };
static const char *const kind_labels[] = {"gate", "queue", "sender"};

enum {
#define RESPITE_METRICS_ID_(id, kind, name, type, unit, label, help) FAMILY_##id,
    RESPITE_METRICS_TABLE(RESPITE_METRICS_ID_)
#undef RESPITE_METRICS_ID_
    FAMILY_COUNT
};

typedef struct family {
    int kind;
    const char *name, *type, *unit, *label, *help;
} family;

#define TYPE_COUNTER "counter"
#define TYPE_GAUGE "gauge"
#define TYPE_STATESET "stateset"

static const family families[FAMILY_COUNT] = {
#define RESPITE_METRICS_ROW_(id, kind, name, type, unit, label, help)                                                \
    {KIND_##kind, name, TYPE_##type, unit, label, help},
    RESPITE_METRICS_TABLE(RESPITE_METRICS_ROW_)
#undef RESPITE_METRICS_ROW_
};

typedef struct sample {
    int family;
    int handle;              /* index into handles */
    int seq;                 /* order added: handles, then their list's order */
    const char *label_value; /* a static string, or "" */
    double value;
} sample;

typedef struct handle {
    int kind;
    char name[RESPITE_NAME_MAX];
} handle;

#define PREFIX_MAX 32

struct respite_metrics {
    char family_names[FAMILY_COUNT][PREFIX_MAX + 48];
    char sample_names[FAMILY_COUNT][PREFIX_MAX + 56];
    handle *handles;
    int handle_count, handle_capacity;
    sample *samples;
    int sample_count, sample_capacity;
    int sorted;
};

const char *respite_metrics_content_type(void)
{
    return RESPITE_METRICS_CONTENT_TYPE;
}

/* The names with the default prefix and the labels column, made once. */
static struct {
    char name[64], labels[96];
} family_texts[FAMILY_COUNT];
static pthread_once_t family_texts_once = PTHREAD_ONCE_INIT;

static void make_family_texts(void)
{
    for (int i = 0; i < FAMILY_COUNT; i++) {
        const family *f = &families[i];
        snprintf(family_texts[i].name, sizeof family_texts[i].name, "respite_%s", f->name);
        const char *second = strcmp(f->type, TYPE_STATESET) == 0 ? family_texts[i].name : f->label;
        snprintf(family_texts[i].labels, sizeof family_texts[i].labels, "%s%s%.63s", kind_labels[f->kind],
                 second[0] ? "," : "", second);
    }
}

int respite_metric_family_count(void)
{
    return FAMILY_COUNT;
}

int respite_metric_family_get(int index, respite_metric_family *out, respite_error *err)
{
    if (index < 0 || index >= FAMILY_COUNT || !out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "index must be 0-%d (got %d)", FAMILY_COUNT - 1, index);
    pthread_once(&family_texts_once, make_family_texts);
    out->name = family_texts[index].name;
    out->type = families[index].type;
    out->unit = families[index].unit;
    out->labels = family_texts[index].labels;
    out->help = families[index].help;
    return RESPITE_OK;
}

static int prefix_valid(const char *prefix)
{
    size_t n = strlen(prefix);
    if (n == 0 || n > PREFIX_MAX || (prefix[0] >= '0' && prefix[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = prefix[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

respite_metrics *respite_metrics_new(const char *prefix, respite_error *err)
{
    if (!prefix || !*prefix)
        prefix = "respite";
    if (!prefix_valid(prefix)) {
        char got[RESPITE_QUOTED_MAX];
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                     "prefix must be a letter or '_' then letters, digits and '_', at most %d bytes (got %s)",
                     PREFIX_MAX, respite_quoted(got, prefix));
        return NULL;
    }
    respite_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating metrics");
        return NULL;
    }
    for (int i = 0; i < FAMILY_COUNT; i++) {
        snprintf(m->family_names[i], sizeof m->family_names[i], "%s_%s", prefix, families[i].name);
        snprintf(m->sample_names[i], sizeof m->sample_names[i], "%s_%s%s", prefix, families[i].name,
                 strcmp(families[i].type, TYPE_COUNTER) == 0 ? "_total" : "");
    }
    m->sorted = 1;
    return m;
}

void respite_metrics_free(respite_metrics *metrics)
{
    if (!metrics)
        return;
    free(metrics->handles);
    free(metrics->samples);
    free(metrics);
}

/* A name as its label value: a shared gate file's names come from a file,
 * so they are made text. */
static void label_of(const char *name, char label[RESPITE_NAME_MAX])
{
    respite_utf8_printable(label, RESPITE_NAME_MAX, name, strlen(name), -1, "", '?');
}

/* M3: RESPITE_OK when no handle of the kind has the name yet. */
static int check_name(const respite_metrics *m, int kind, const char *name, respite_error *err)
{
    char label[RESPITE_NAME_MAX];
    label_of(name, label);
    for (int i = 0; i < m->handle_count; i++) {
        if (m->handles[i].kind == kind && strcmp(m->handles[i].name, label) == 0) {
            char got[RESPITE_QUOTED_MAX];
            return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                                "metrics already have a %s named %s: give each %s its own name (the name setting)",
                                kind_labels[kind], respite_quoted(got, label), kind_labels[kind]);
        }
    }
    return RESPITE_OK;
}

/* Registers a handle; its index, or -1 and err. */
static int add_handle(respite_metrics *m, int kind, const char *name, respite_error *err)
{
    char label[RESPITE_NAME_MAX];
    if (check_name(m, kind, name, err) != RESPITE_OK)
        return -1;
    label_of(name, label);
    if (m->handle_count == m->handle_capacity) {
        int capacity = m->handle_capacity ? m->handle_capacity * 2 : 8;
        handle *grown = realloc(m->handles, (size_t)capacity * sizeof *grown);
        if (!grown) {
            respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory adding to metrics");
            return -1;
        }
        m->handles = grown;
        m->handle_capacity = capacity;
    }
    m->handles[m->handle_count].kind = kind;
    memcpy(m->handles[m->handle_count].name, label, sizeof label);
    return m->handle_count++;
}

/* The samples of one handle, in table order, added at once or not at all. */
typedef struct pending_sample {
    int family;
    const char *label_value;
    double value;
} pending_sample;

static int add_samples(respite_metrics *m, int kind, const char *name, const pending_sample *list, int count,
                       respite_error *err)
{
    if (m->sample_count + count > m->sample_capacity) {
        int capacity = m->sample_capacity ? m->sample_capacity : 64;
        while (capacity < m->sample_count + count)
            capacity *= 2;
        sample *grown = realloc(m->samples, (size_t)capacity * sizeof *grown);
        if (!grown)
            return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory adding to metrics");
        m->samples = grown;
        m->sample_capacity = capacity;
    }
    int h = add_handle(m, kind, name, err);
    if (h < 0)
        return err ? err->status : RESPITE_E_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++)
        m->samples[m->sample_count] = (sample){list[i].family, h, m->sample_count, list[i].label_value, list[i].value},
        m->sample_count++;
    m->sorted = 0;
    return RESPITE_OK;
}

/* M4: a gate's figures; state and pause_left as at the snapshot's time. */
static int add_gate_figures(respite_metrics *m, const char *name, int state, double pause_left, int window_failures,
                            int64_t generation, int probes_outstanding, const respite_gate_stats *s,
                            respite_error *err)
{
    const pending_sample list[] = {
        {FAMILY_GATE_STATE, "closed", state == RESPITE_GATE_CLOSED},
        {FAMILY_GATE_STATE, "open", state == RESPITE_GATE_OPEN},
        {FAMILY_GATE_STATE, "probing", state == RESPITE_GATE_PROBING},
        {FAMILY_GATE_ADMITTED, "", (double)s->admitted},
        {FAMILY_GATE_REFUSED, "", (double)s->refused},
        {FAMILY_GATE_REPORTED, "", (double)s->reported},
        {FAMILY_GATE_SUCCESSES, "", (double)s->successes},
        {FAMILY_GATE_COUNTED_FAILURES, "", (double)s->counted_failures},
        {FAMILY_GATE_LATE_REPORTS, "", (double)s->late},
        {FAMILY_GATE_TRIPS, "", (double)s->trips},
        {FAMILY_GATE_PAUSES, "", (double)s->pauses},
        {FAMILY_GATE_PROBES, "", (double)s->probes},
        {FAMILY_GATE_PROBE_TIMEOUTS, "", (double)s->probe_timeouts},
        {FAMILY_GATE_EVENTS_DROPPED, "", (double)s->events_dropped},
        {FAMILY_GATE_WINDOW_FAILURES, "", window_failures},
        {FAMILY_GATE_PROBES_OUTSTANDING, "", probes_outstanding},
        {FAMILY_GATE_GENERATION, "", (double)generation},
        {FAMILY_GATE_PAUSE_SECONDS, "", s->delay},
        {FAMILY_GATE_PAUSE_LEFT_SECONDS, "", state == RESPITE_GATE_OPEN && pause_left > 0 ? pause_left : 0},
    };
    return add_samples(m, KIND_GATE, name, list, (int)(sizeof list / sizeof list[0]), err);
}

int respite_metrics_add_gate(respite_metrics *metrics, respite_gate *gate, respite_error *err)
{
    if (!metrics)
        return respite_closed(RESPITE_HANDLE_METRICS, err);
    if (!gate)
        return respite_closed(RESPITE_HANDLE_GATE, err);
    double now = respite_now();
    int state = respite_gate_get_state(gate, now, err);
    respite_gate_stats s;
    if (state < 0 || respite_gate_stats_get(gate, &s, err) != RESPITE_OK)
        return err ? err->status : RESPITE_E_INTERNAL;
    return add_gate_figures(metrics, respite_gate_name(gate), state, s.until - now, s.window_failures, s.generation,
                            s.probes_outstanding, &s, err);
}

int respite_metrics_add_shared_gate(respite_metrics *metrics, const respite_shared_gate_info *gate,
                                    respite_error *err)
{
    if (!metrics)
        return respite_closed(RESPITE_HANDLE_METRICS, err);
    if (!gate)
        return respite_closed(RESPITE_HANDLE_GATE, err);
    return add_gate_figures(metrics, gate->name, gate->state, gate->pause_left, gate->window_failures,
                            gate->generation, gate->probes_outstanding, &gate->stats, err);
}

/* M5: every drop and refusal reason is a label value, so the reasons add up
 * to the queue's accounting (D9). */
static int add_queue_figures(respite_metrics *m, const char *name, const respite_queue_stats *s, respite_error *err)
{
    const pending_sample list[] = {
        {FAMILY_QUEUE_ACCEPTED, "", (double)s->accepted},
        {FAMILY_QUEUE_DELIVERED, "", (double)s->delivered},
        {FAMILY_QUEUE_DROPPED, "capacity", (double)s->dropped_capacity},
        {FAMILY_QUEUE_DROPPED, "expired", (double)s->expired},
        {FAMILY_QUEUE_DROPPED, "retries_exhausted", (double)s->retries_exhausted},
        {FAMILY_QUEUE_DROPPED, "discarded", (double)s->discarded},
        {FAMILY_QUEUE_REFUSED, "full", (double)s->refused_full},
        {FAMILY_QUEUE_REFUSED, "too_large", (double)s->refused_too_large},
        {FAMILY_QUEUE_REFUSED, "closed", (double)s->refused_closed},
        {FAMILY_QUEUE_RETRIED, "", (double)s->retried},
        {FAMILY_QUEUE_PENDING, "", (double)s->pending},
        {FAMILY_QUEUE_IN_FLIGHT, "", (double)s->in_flight},
        {FAMILY_QUEUE_PENDING_BYTES, "", (double)s->pending_bytes},
        {FAMILY_QUEUE_IN_FLIGHT_BYTES, "", (double)s->in_flight_bytes},
        {FAMILY_QUEUE_CAPACITY, "", (double)s->capacity},
    };
    return add_samples(m, KIND_QUEUE, name, list, (int)(sizeof list / sizeof list[0]), err);
}

int respite_metrics_add_queue(respite_metrics *metrics, respite_queue *queue, respite_error *err)
{
    if (!metrics)
        return respite_closed(RESPITE_HANDLE_METRICS, err);
    if (!queue)
        return respite_closed(RESPITE_HANDLE_QUEUE, err);
    respite_queue_stats s;
    if (respite_queue_stats_get(queue, &s, err) != RESPITE_OK)
        return err ? err->status : RESPITE_E_INTERNAL;
    return add_queue_figures(metrics, respite_queue_name(queue), &s, err);
}

int respite_metrics_add_sender_stats(respite_metrics *metrics, const char *name, const respite_sender_stats *stats,
                                     double now, respite_error *err)
{
    if (!metrics)
        return respite_closed(RESPITE_HANDLE_METRICS, err);
    if (!stats || !name)
        return respite_closed(RESPITE_HANDLE_SENDER, err);
    /* All three names first: a sender is added whole or not at all. */
    int rc = check_name(metrics, KIND_GATE, name, err);
    if (rc == RESPITE_OK)
        rc = check_name(metrics, KIND_QUEUE, name, err);
    if (rc == RESPITE_OK)
        rc = check_name(metrics, KIND_SENDER, name, err);
    if (rc != RESPITE_OK)
        return rc;
    const respite_gate_stats *g = &stats->gate;
    rc = add_gate_figures(metrics, name, g->state, g->until - now, g->window_failures, g->generation,
                              g->probes_outstanding, g, err);
    if (rc == RESPITE_OK)
        rc = add_queue_figures(metrics, name, &stats->queue, err);
    if (rc != RESPITE_OK)
        return rc;
    const pending_sample list[] = {
        {FAMILY_SENDER_BATCHES, "", (double)stats->engine.sends},
        {FAMILY_SENDER_EVENTS_SENT, "", (double)stats->engine.events_sent},
        {FAMILY_SENDER_REQUESTS, "", (double)stats->requests},
        {FAMILY_SENDER_SENT_BYTES, "", (double)stats->bytes_sent},
        {FAMILY_SENDER_FAILED_BATCHES, "", (double)stats->engine.sends_failed},
        {FAMILY_SENDER_REFUSALS, "", (double)stats->engine.refusals},
        {FAMILY_SENDER_PAUSED, "", stats->paused ? 1 : 0},
    };
    return add_samples(metrics, KIND_SENDER, name, list, (int)(sizeof list / sizeof list[0]), err);
}

static int compare_samples(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    if (x->family != y->family)
        return x->family < y->family ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int respite_metrics_sample_count(respite_metrics *metrics)
{
    return metrics ? metrics->sample_count : -1;
}

int respite_metrics_sample(respite_metrics *metrics, int index, respite_metric_sample *out, respite_error *err)
{
    if (!metrics)
        return respite_closed(RESPITE_HANDLE_METRICS, err);
    if (index < 0 || index >= metrics->sample_count || !out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "index must be 0-%d (got %d)",
                            metrics->sample_count - 1, index);
    if (!metrics->sorted) {
        /* By family, then as added (qsort is not stable: seq decides). */
        qsort(metrics->samples, (size_t)metrics->sample_count, sizeof *metrics->samples, compare_samples);
        metrics->sorted = 1;
    }
    const sample *s = &metrics->samples[index];
    const family *f = &families[s->family];
    out->family = metrics->family_names[s->family];
    out->name = metrics->sample_names[s->family];
    out->type = f->type;
    out->unit = f->unit;
    out->help = f->help;
    out->handle_label = kind_labels[f->kind];
    out->handle = metrics->handles[s->handle].name;
    out->label = strcmp(f->type, TYPE_STATESET) == 0 ? metrics->family_names[s->family] : f->label;
    out->label_value = s->label_value;
    out->value = s->value;
    return RESPITE_OK;
}

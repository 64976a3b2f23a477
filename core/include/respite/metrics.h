/*
 * respite/metrics.h - the statistics of gates, queues and senders as
 * metrics (docs/spec.md section 12, rules M1-M8).
 *
 * A respite_metrics is a snapshot: each add reads the handle's statistics
 * at that moment. It renders as OpenMetrics text (what a Prometheus scrape
 * reads), and the same samples are readable one by one, so a binding's
 * collector maps them to its metrics library without parsing text and
 * without naming a metric itself. Every metric's name, type, unit, labels
 * and help are in one table in the core (core/src/metrics_table.h).
 * A collector makes a new snapshot for every scrape.
 *
 * Thread safety: a snapshot belongs to one thread; the handles it reads are
 * safe to share as always.
 */
#ifndef RESPITE_METRICS_H
#define RESPITE_METRICS_H

#include "respite/common.h"
#include "respite/gate.h"
#include "respite/queue.h"
#include "respite/shared_gate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_metrics respite_metrics;
typedef struct respite_sender respite_sender;
typedef struct respite_sender_stats respite_sender_stats;

/* The media type of the text respite_metrics_render writes (M1). */
#define RESPITE_METRICS_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"
/* The same, for bindings that read no macros. */
RESPITE_API const char *respite_metrics_content_type(void);

/* One metric family of the table (M2), its name with the prefix "respite". */
typedef struct respite_metric_family {
    const char *name;   /* "respite_gate_admitted": without "_total" */
    const char *type;   /* "counter", "gauge" or "stateset" */
    const char *unit;   /* "", "seconds" or "bytes" (the name then ends in "_<unit>") */
    const char *labels; /* the label names in order, comma-separated: "gate", "queue,reason" */
    const char *help;
} respite_metric_family;

/* Families in the table, and family `index` (0-based): RESPITE_OK, or
 * invalid_argument for an index out of range. */
RESPITE_API int respite_metric_family_count(void);
RESPITE_API int respite_metric_family_get(int index, respite_metric_family *out, respite_error *err);

/* A new, empty snapshot. prefix: what family names start with instead of
 * "respite" (NULL or "": "respite"); a letter or '_' then letters, digits
 * and '_', at most 32 bytes (else invalid_argument). */
RESPITE_API respite_metrics *respite_metrics_new(const char *prefix, respite_error *err);
/* NULL: no-op. */
RESPITE_API void respite_metrics_free(respite_metrics *metrics);

/* Adds a handle's figures as they are now (M3-M5), labelled with the
 * handle's name (the `name` setting). Two handles of one kind with the same
 * name cannot be told apart: the second is invalid_argument. A NULL handle:
 * closed. */
RESPITE_API int respite_metrics_add_gate(respite_metrics *metrics, respite_gate *gate, respite_error *err);
RESPITE_API int respite_metrics_add_queue(respite_metrics *metrics, respite_queue *queue, respite_error *err);
/* A gate of a shared gate file as respite_shared_gates_read saw it
 * (what `respite gates FILE --prometheus` shows). */
RESPITE_API int respite_metrics_add_shared_gate(respite_metrics *metrics, const respite_shared_gate_info *gate,
                                                respite_error *err);
/* A sender: its own figures, its queue's (label queue = the sender's name)
 * and its gate's (label gate = the sender's name, as of the sender's last
 * call into it). In the HTTP module (library respite_http). */
RESPITE_API int respite_metrics_add_sender(respite_metrics *metrics, respite_sender *sender, respite_error *err);
/* The same from statistics already read, for the HTTP module. */
RESPITE_API int respite_metrics_add_sender_stats(respite_metrics *metrics, const char *name,
                                                 const respite_sender_stats *stats, double now, respite_error *err);

/* One sample (M6): strings valid while the snapshot lives and nothing is
 * added to it. */
typedef struct respite_metric_sample {
    const char *family;       /* the family's name with the snapshot's prefix */
    const char *name;         /* the sample's: family, "_total" added for a counter */
    const char *type;         /* as respite_metric_family */
    const char *unit;
    const char *help;
    const char *handle_label; /* "gate", "queue" or "sender" */
    const char *handle;       /* the handle's name */
    const char *label;        /* a second label's name ("reason"; a stateset's: the family) or "" */
    const char *label_value;  /* its value, or "" */
    double value;
} respite_metric_sample;

/* Samples in the snapshot, in the order the text has them (family by
 * family, in table order; within one, handles in the order added). -1 for
 * NULL. */
RESPITE_API int respite_metrics_sample_count(respite_metrics *metrics);
/* Sample `index`: RESPITE_OK, or invalid_argument out of range. */
RESPITE_API int respite_metrics_sample(respite_metrics *metrics, int index, respite_metric_sample *out,
                                       respite_error *err);

/* The snapshot as OpenMetrics text, ending "# EOF\n" (M1, M7). Free with
 * respite_free_string (policy.h). NULL and err on failure. */
RESPITE_API char *respite_metrics_render(respite_metrics *metrics, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_METRICS_H */

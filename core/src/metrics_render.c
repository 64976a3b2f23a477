/* A metrics snapshot as OpenMetrics text (docs/spec.md section 12, M1, M7).
 * Written from the structured samples alone, so the text and what the
 * bindings' collectors read cannot differ. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct text {
    char *buf;
    size_t length, capacity;
    int failed;
} text;

static void append(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->length + n + 1 > t->capacity) {
        size_t capacity = t->capacity ? t->capacity : 4096;
        while (capacity < t->length + n + 1)
            capacity *= 2;
        char *grown = realloc(t->buf, capacity);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->buf = grown;
        t->capacity = capacity;
    }
    memcpy(t->buf + t->length, s, n);
    t->length += n;
    t->buf[t->length] = '\0';
}

static void append_text(text *t, const char *s)
{
    append(t, s, strlen(s));
}

/* M7: a label value or HELP text with \, " and newline escaped. */
static void append_escaped(text *t, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            append(t, "\\\\", 2);
        else if (*s == '"')
            append(t, "\\\"", 2);
        else if (*s == '\n')
            append(t, "\\n", 2);
        else
            append(t, s, 1);
    }
}

/* Whole numbers as integers, others as the shortest text that reads back
 * as the same double; +Inf, -Inf and NaN as OpenMetrics spells them. */
static void append_value(text *t, double v)
{
    char buf[64];
    if (isnan(v))
        snprintf(buf, sizeof buf, "NaN");
    else if (isinf(v))
        snprintf(buf, sizeof buf, "%cInf", v > 0 ? '+' : '-');
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(buf, sizeof buf, "%.0f", v);
    else
        respite_format_number(v, buf, sizeof buf);
    append_text(t, buf);
}

static void append_family(text *t, const respite_metric_sample *s)
{
    append_text(t, "# TYPE ");
    append_text(t, s->family);
    append_text(t, " ");
    append_text(t, s->type);
    append_text(t, "\n");
    if (s->unit[0]) {
        append_text(t, "# UNIT ");
        append_text(t, s->family);
        append_text(t, " ");
        append_text(t, s->unit);
        append_text(t, "\n");
    }
    append_text(t, "# HELP ");
    append_text(t, s->family);
    append_text(t, " ");
    append_escaped(t, s->help);
    append_text(t, "\n");
}

static void append_sample(text *t, const respite_metric_sample *s)
{
    append_text(t, s->name);
    append_text(t, "{");
    append_text(t, s->handle_label);
    append_text(t, "=\"");
    append_escaped(t, s->handle);
    append_text(t, "\"");
    if (s->label[0]) {
        append_text(t, ",");
        append_text(t, s->label);
        append_text(t, "=\"");
        append_escaped(t, s->label_value);
        append_text(t, "\"");
    }
    append_text(t, "} ");
    append_value(t, s->value);
    append_text(t, "\n");
}

char *respite_metrics_render(respite_metrics *metrics, respite_error *err)
{
    int count = respite_metrics_sample_count(metrics);
    if (count < 0)
        return respite_closed(RESPITE_HANDLE_METRICS, err), NULL;
    text t = {0};
    const char *family = NULL;
    for (int i = 0; i < count; i++) {
        respite_metric_sample s;
        if (respite_metrics_sample(metrics, i, &s, err) != RESPITE_OK) {
            free(t.buf);
            return NULL;
        }
        if (s.family != family)
            append_family(&t, &s);
        family = s.family;
        append_sample(&t, &s);
    }
    append_text(&t, "# EOF\n");
    if (t.failed) {
        free(t.buf);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory rendering metrics");
        return NULL;
    }
    return t.buf;
}

/* The background sender (spec section 5, S1-S12): one thread drives the
 * delivery engine and sends its batches with libcurl. Producers only touch
 * the queue (S1). The sender's lock guards the engine and the figures; it
 * is never held during network I/O.
 *
 * fork() (S15): a child has the parent's memory but not its thread, and
 * perhaps a lock that thread held. A sender remembers the fork generation
 * it was made in; in a later child it belongs to the parent: it touches no
 * lock, joins nothing and frees nothing (freeing would end the parent's
 * TLS sessions on the shared sockets). */
#define _GNU_SOURCE /* pthread_setname_np */
#include "../event_ring.h"
#include "../utf8.h"
#include "http_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SENDER_EVENT_RING 256
/* How long the idle thread waits for events before it looks again for a
 * flush (the queue's condition wakes it as soon as enough are queued). */
#define IDLE_POLL_SECONDS 0.02
/* How long the thread waits before asking again after its queue failed. */
#define STORAGE_RETRY_SECONDS 0.25

struct respite_sender {
    /* settings, fixed at _new */
    char name[RESPITE_NAME_MAX]; /* the source of every event it logs */
    char *url;
    char *content_type;
    char *prefix;
    char *separator;
    char *suffix;
    char *ids_header; /* S16: "" for none */
    double timeout;
    int gzip;
    int min_entries;

    respite_gate *gate;
    respite_queue *queue;
    respite_engine *engine;
    respite_event_ring events;

    pthread_mutex_t lock;
    pthread_cond_t changed; /* monotonic; close, flush, progress */
    pthread_t thread;
    int thread_started;

    /* under lock */
    int closing;
    int joining;
    int closed;
    int flushes;
    int64_t unsent;
    int64_t requests;
    int64_t bytes_sent;
    char **extra_headers; /* "Name: value" */
    size_t extra_count;
    unsigned headers_version;

    unsigned fork_generation;     /* the process it was made in (S15) */
    _Atomic int refusing_enqueue; /* closing: enqueue says "sender is closed" */
    _Atomic long long abort_at_us;

    /* the sender thread's own */
    CURL *easy;
    CURLM *multi;
    struct curl_slist *request_headers;
    unsigned request_headers_version;
    respite_buffer body;
    respite_buffer gzipped;
    respite_buffer ids;         /* S16's header line */
    respite_response *response; /* reused for every send */
    int options_set;            /* the easy handle holds the request's options */
};

static int fail_closed(respite_error *err)
{
    return respite_closed(RESPITE_HANDLE_SENDER, err);
}

/* S15: made before this process was forked from its maker. */
static int inherited(const respite_sender *s)
{
    return s->fork_generation != respite_http_fork_generation();
}

/* What every call but close starts with: NULL is closed (common.h), and so
 * is a parent's sender in a child. */
static int unusable(const respite_sender *s, respite_error *err)
{
    if (!s)
        return fail_closed(err);
    if (inherited(s))
        return respite_fail(err, RESPITE_E_CLOSED,
                            "sender belongs to the process that made it: this process was forked after, and the "
                            "sender sends nothing here");
    return RESPITE_OK;
}

/* The sender's gate and engine are its own: their events are the sender's. */
static void push_as_sender(respite_sender *s, respite_event *event)
{
    memcpy(event->source, s->name, sizeof event->source);
    respite_event_ring_push(&s->events, event);
}

/* Read from the gate rather than through its callback: a shared gate's
 * transitions made by other processes reach this handle only so (H9). The
 * gate's come first: they happened inside the engine's step. */
static void forward_events(respite_sender *s)
{
    respite_event ev;
    while (respite_gate_next_event(s->gate, &ev, NULL) == 1)
        push_as_sender(s, &ev);
    while (respite_engine_next_event(s->engine, &ev, NULL) == 1)
        push_as_sender(s, &ev);
}

/* ------------------------------------------------------------ lifecycle */

static char *copy_setting(const respite_settings *settings, respite_setting_id id, int *failed)
{
    char *copy = strdup(respite_setting_text(settings, id));
    if (!copy)
        *failed = 1;
    return copy;
}

static void *sender_main(void *arg);

respite_sender *respite_sender_new(const respite_settings *sender_settings, const respite_settings *gate_settings,
                                   const respite_settings *queue_settings, const respite_policy *policy,
                                   respite_error *err)
{
    if (respite_http_global_init(err) != RESPITE_OK)
        return NULL;
    if (respite_settings_expect(sender_settings, "sender", "sender_settings", err) != RESPITE_OK ||
        respite_settings_expect(gate_settings, "gate", "gate_settings", err) != RESPITE_OK ||
        respite_settings_expect(queue_settings, "queue", "queue_settings", err) != RESPITE_OK)
        return NULL;
    respite_settings *own_sender = NULL, *own_gate = NULL;
    if (!sender_settings && !(sender_settings = own_sender = respite_settings_new("sender", err)))
        return NULL;
    respite_sender *s = calloc(1, sizeof *s);
    if (!s) {
        respite_settings_free(own_sender);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a sender");
        return NULL;
    }
    s->fork_generation = respite_http_fork_generation();
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->changed, &attr);
    pthread_condattr_destroy(&attr);
    s->unsent = -1;

    if (respite_settings_validate(sender_settings, err) != RESPITE_OK)
        goto fail;
    int failed = 0;
    respite_copy_text(s->name, sizeof s->name, respite_setting_text(sender_settings, RESPITE_SETTING_SENDER_NAME));
    s->url = copy_setting(sender_settings, RESPITE_SETTING_SENDER_URL, &failed);
    s->content_type = copy_setting(sender_settings, RESPITE_SETTING_SENDER_CONTENT_TYPE, &failed);
    s->prefix = copy_setting(sender_settings, RESPITE_SETTING_SENDER_PREFIX, &failed);
    s->separator = copy_setting(sender_settings, RESPITE_SETTING_SENDER_SEPARATOR, &failed);
    s->suffix = copy_setting(sender_settings, RESPITE_SETTING_SENDER_SUFFIX, &failed);
    s->ids_header = copy_setting(sender_settings, RESPITE_SETTING_SENDER_IDS_HEADER, &failed);
    if (failed) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a sender");
        goto fail;
    }
    if (!respite_url_valid(s->url)) {
        char got[RESPITE_QUOTED_MAX];
        respite_fail_setting(err, "url", "url must be an http:// or https:// URL (got %s)", respite_quoted(got, s->url));
        goto fail;
    }
    s->timeout = respite_setting_number(sender_settings, RESPITE_SETTING_SENDER_TIMEOUT_SECONDS);
    s->gzip = respite_setting_flag(sender_settings, RESPITE_SETTING_SENDER_GZIP);
    s->min_entries = (int)respite_setting_integer(sender_settings, RESPITE_SETTING_SENDER_MIN_ENTRIES_PER_MESSAGE);

    if (!gate_settings && !(gate_settings = own_gate = respite_settings_new("usage_sharing", err)))
        goto fail;
    if (!(s->gate = respite_gate_new(gate_settings, err)))
        goto fail;
    if (!(s->queue = respite_queue_new(policy, queue_settings, err)))
        goto fail;
    if (!(s->engine = respite_engine_new(s->queue, s->gate, sender_settings, err)))
        goto fail;
    if (respite_event_ring_init(&s->events, SENDER_EVENT_RING, err) != RESPITE_OK)
        goto fail;
    s->easy = curl_easy_init();
    s->multi = curl_multi_init();
    s->response = respite_response_new(RESPITE_EVENT_DETAIL_MAX - 1);
    if (s->response)
        s->response->retry_after_only = 1;
    if (!s->easy || !s->multi || !s->response) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating libcurl handles");
        goto fail;
    }
    if (pthread_create(&s->thread, NULL, sender_main, s) != 0) {
        respite_fail(err, RESPITE_E_INTERNAL, "could not start the sender thread");
        goto fail;
    }
    s->thread_started = 1;
    respite_settings_free(own_sender);
    respite_settings_free(own_gate);
    return s;
fail:
    respite_settings_free(own_sender);
    respite_settings_free(own_gate);
    s->closed = 1;
    respite_sender_free(s);
    return NULL;
}

const char *respite_sender_name(const respite_sender *sender)
{
    return sender ? sender->name : NULL;
}

void respite_sender_free(respite_sender *sender)
{
    if (!sender || inherited(sender))
        return; /* S15: the parent's, left as it is */
    if (sender->thread_started)
        respite_sender_close(sender, NULL);
    respite_engine_free(sender->engine);
    respite_queue_free(sender->queue);
    respite_gate_free(sender->gate);
    if (sender->events.events)
        respite_event_ring_destroy(&sender->events);
    if (sender->multi)
        curl_multi_cleanup(sender->multi);
    if (sender->easy)
        curl_easy_cleanup(sender->easy);
    curl_slist_free_all(sender->request_headers);
    respite_response_free(sender->response);
    respite_buffer_free(&sender->body);
    respite_buffer_free(&sender->gzipped);
    respite_buffer_free(&sender->ids);
    for (size_t i = 0; i < sender->extra_count; i++)
        free(sender->extra_headers[i]);
    free(sender->extra_headers);
    free(sender->url);
    free(sender->content_type);
    free(sender->prefix);
    free(sender->separator);
    free(sender->suffix);
    free(sender->ids_header);
    pthread_cond_destroy(&sender->changed);
    pthread_mutex_destroy(&sender->lock);
    free(sender);
}

/* -------------------------------------------------------------- headers */

int respite_sender_add_header(respite_sender *sender, const char *name, const char *value, respite_error *err)
{
    int rc = unusable(sender, err);
    if (rc != RESPITE_OK)
        return rc;
    char got[RESPITE_QUOTED_MAX];
    if (!respite_header_name_valid(name))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "name must be a header name: letters, digits and !#$%%&'*+-.^_`|~ (got %s)",
                            respite_quoted(got, name ? name : "(null)"));
    if (!value || strpbrk(value, "\r\n"))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "value must be text without line breaks (got %s)", value ? "a line break" : "NULL");
    size_t len = strlen(name) + strlen(value) + 3;
    char *line = malloc(len);
    if (!line)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory adding a header");
    /* "Name;" is how libcurl sends a header with an empty value. */
    if (*value)
        snprintf(line, len, "%s: %s", name, value);
    else
        snprintf(line, len, "%s;", name);
    pthread_mutex_lock(&sender->lock);
    char **grown = realloc(sender->extra_headers, (sender->extra_count + 1) * sizeof *grown);
    if (!grown) {
        pthread_mutex_unlock(&sender->lock);
        free(line);
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory adding a header");
    }
    sender->extra_headers = grown;
    sender->extra_headers[sender->extra_count++] = line;
    sender->headers_version++;
    pthread_mutex_unlock(&sender->lock);
    return RESPITE_OK;
}

/* Called with the lock held: the thread's own copy of the header list. */
static int refresh_request_headers(respite_sender *s)
{
    if (s->request_headers && s->request_headers_version == s->headers_version)
        return 0;
    curl_slist_free_all(s->request_headers);
    s->request_headers = NULL;
    /* Sized to the setting: a text setting is accepted or rejected, never cut. */
    size_t size = strlen("Content-Type: ") + strlen(s->content_type) + 1;
    char *content_type = malloc(size);
    if (!content_type)
        return -1;
    snprintf(content_type, size, "Content-Type: %s", s->content_type);
    const char *fixed[] = {content_type, "Expect:", s->gzip ? "Content-Encoding: gzip" : NULL};
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (!fixed[i])
            continue;
        struct curl_slist *grown = curl_slist_append(list, fixed[i]);
        if (!grown)
            goto fail;
        list = grown;
    }
    for (size_t i = 0; i < s->extra_count; i++) {
        struct curl_slist *grown = curl_slist_append(list, s->extra_headers[i]);
        if (!grown)
            goto fail;
        list = grown;
    }
    free(content_type); /* libcurl keeps its own copy */
    s->request_headers = list;
    s->request_headers_version = s->headers_version;
    s->options_set = 0;
    return 0;
fail:
    free(content_type);
    curl_slist_free_all(list);
    return -1;
}

/* ---------------------------------------------------------- the thread */

static void push_send_failed(respite_sender *s, double now, const respite_response *r, const char *why)
{
    respite_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = RESPITE_EVENT_SEND_FAILED;
    ev.at = now;
    ev.http_status = r ? r->status : 0;
    const char *detail = why ? why : !r ? "" : r->status == 0 ? r->error : r->body;
    /* Any bytes a server sent: as text every binding can decode (S6). */
    respite_utf8_printable(ev.detail, sizeof ev.detail, detail, strlen(detail), -1, "", 0);
    push_as_sender(s, &ev);
}

/* S16: the request's headers and the batch's ids; NULL and err when out of
 * memory. Without the lock: the list is the thread's own. */
static struct curl_slist *headers_with_ids(respite_sender *s, respite_batch *batch, respite_error *err)
{
    if (respite_batch_ids_header(batch, s->ids_header, &s->ids, err) != RESPITE_OK)
        return NULL;
    struct curl_slist *list = NULL;
    for (const struct curl_slist *h = s->request_headers; h; h = h->next) {
        struct curl_slist *grown = curl_slist_append(list, h->data);
        if (!grown)
            goto fail;
        list = grown;
    }
    struct curl_slist *grown = curl_slist_append(list, s->ids.data);
    if (grown)
        return grown;
fail:
    curl_slist_free_all(list);
    respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory adding the ids header");
    return NULL;
}

/* Takes a batch and sends it; called and returns with the lock held. */
static void send_batch(respite_sender *s)
{
    respite_error e;
    respite_error_clear(&e);
    respite_batch *batch = respite_engine_take(s->engine, respite_now(), &e);
    if (!batch)
        return; /* nothing pending, or the gate refused: the loop asks again */
    int headers_failed = refresh_request_headers(s);
    pthread_mutex_unlock(&s->lock);

    respite_response *r = s->response;
    if (r)
        respite_response_reset(r);
    const char *why = NULL;
    respite_buffer *payload = &s->body;
    struct curl_slist *with_ids = NULL;
    int rc = RESPITE_E_NO_MEMORY;
    if (!r || headers_failed) {
        why = "out of memory preparing the request";
    } else if (respite_batch_body(batch, s->prefix, s->separator, s->suffix, &s->body, &e) != RESPITE_OK ||
               (s->gzip && respite_gzip(s->body.data, s->body.size, &s->gzipped, &e) != RESPITE_OK)) {
        why = e.message;
    } else if (*s->ids_header && !(with_ids = headers_with_ids(s, batch, &e))) {
        why = e.message;
    } else {
        if (s->gzip)
            payload = &s->gzipped;
        respite_transfer t = {"POST", s->url, with_ids ? with_ids : s->request_headers, payload->data, payload->size,
                              s->timeout, "respite", NULL, &s->abort_at_us, s->options_set && !with_ids, NULL};
        rc = respite_http_perform(s->easy, s->multi, &t, r);
        /* A batch's own header list is freed below: the next send sets its own. */
        s->options_set = !with_ids;
        if (rc != RESPITE_OK)
            why = "out of memory reading the answer";
    }
    curl_slist_free_all(with_ids);

    pthread_mutex_lock(&s->lock);
    double now = respite_now();
    int sent = rc == RESPITE_OK;
    int status = sent ? r->status : 0;
    if (sent) {
        s->requests++;
        s->bytes_sent += (int64_t)payload->size;
    }
    /* S3: anything but a 2xx/3xx answer is a failed send. */
    if (status < 200 || status > 399)
        push_send_failed(s, now, sent ? r : NULL, why);
    respite_engine_settle(s->engine, batch, status == 0, status, sent ? r->retry_after : 0.0, now, NULL);
    /* Wake a flush only when it may be done or the gate may have opened:
     * waking it after every batch would cost a context switch each. */
    if (status < 200 || status > 399 || respite_queue_pending(s->queue, NULL) == 0)
        pthread_cond_broadcast(&s->changed);
}

static void *sender_main(void *arg)
{
    respite_sender *s = arg;
    pthread_setname_np(pthread_self(), "respite-sender"); /* for ps, top and debuggers */
    pthread_mutex_lock(&s->lock);
    for (;;) {
        int action = respite_engine_next(s->engine, respite_now(), NULL);
        forward_events(s);
        if (action == RESPITE_ACTION_DONE)
            break;
        if (action < 0) {
            /* A queue file failed (L2: storage, e.g. locked by another
             * process past its busy timeout): try again shortly rather than
             * stop sending for good; a close gives up at its deadline. */
            respite_engine_stats es;
            if (s->closing && (respite_engine_stats_get(s->engine, &es, NULL) != RESPITE_OK ||
                               respite_now() >= es.close_deadline))
                break;
            struct timespec until = respite_http_deadline_in(STORAGE_RETRY_SECONDS);
            pthread_cond_timedwait(&s->changed, &s->lock, &until);
            continue;
        }
        if (action == RESPITE_ACTION_SEND) {
            send_batch(s);
        } else if (action == RESPITE_ACTION_WAIT) {
            /* S4: wait out the pause; close (or flush) ends the wait early. */
            struct timespec until = respite_http_deadline_in(respite_engine_wait_seconds(s->engine));
            if (!s->closing)
                pthread_cond_timedwait(&s->changed, &s->lock, &until);
        } else if (s->flushes > 0 && respite_queue_pending(s->queue, NULL) > 0) {
            /* flush: below the minimum too, but never past a refusing gate */
            double wait = respite_gate_retry_after(s->gate, respite_now(), NULL);
            if (wait > 0) {
                struct timespec until = respite_http_deadline_in(wait);
                pthread_cond_timedwait(&s->changed, &s->lock, &until);
            } else {
                send_batch(s);
            }
        } else {
            int64_t want = s->flushes > 0 ? 1 : s->min_entries;
            pthread_mutex_unlock(&s->lock);
            respite_queue_wait(s->queue, want, IDLE_POLL_SECONDS, NULL);
            pthread_mutex_lock(&s->lock);
        }
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ------------------------------------------------------------ producers */

int respite_sender_enqueue(respite_sender *sender, const char *data, size_t size, respite_error *err)
{
    int rc = unusable(sender, err);
    if (rc != RESPITE_OK)
        return rc;
    if (atomic_load(&sender->refusing_enqueue))
        return fail_closed(err);
    rc = respite_queue_enqueue(sender->queue, data, size, respite_now(), err);
    if (rc == RESPITE_E_CLOSED)
        return fail_closed(err);
    return rc;
}

/* --------------------------------------------------------- flush, close */

int respite_sender_flush(respite_sender *sender, double timeout_seconds, respite_error *err)
{
    int rc = unusable(sender, err);
    if (rc != RESPITE_OK)
        return rc;
    if (!(timeout_seconds >= 0.0 && timeout_seconds <= 86400.0)) {
        char text[40];
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "timeout_seconds must be a number from 0 to 86400 (got %s)",
                            respite_format_number(timeout_seconds, text, sizeof text));
    }
    pthread_mutex_lock(&sender->lock);
    if (sender->closing) {
        pthread_mutex_unlock(&sender->lock);
        return fail_closed(err);
    }
    sender->flushes++;
    pthread_cond_broadcast(&sender->changed);
    /* The thread may be waiting on the queue for min_entries_per_message
     * events: it sends below the minimum from now on. */
    respite_queue_interrupt(sender->queue);
    double deadline = respite_now() + timeout_seconds;
    for (;;) {
        respite_queue_stats qs;
        if ((rc = respite_queue_stats_get(sender->queue, &qs, err)) != RESPITE_OK)
            break;
        if (qs.pending == 0 && qs.in_flight == 0)
            break; /* rc == RESPITE_OK */
        double now = respite_now();
        if (respite_gate_get_state(sender->gate, now, NULL) == RESPITE_GATE_OPEN) {
            rc = respite_refusal_error(respite_gate_retry_after(sender->gate, now, NULL), err);
            break;
        }
        if (sender->closing) { /* close began while flush waited (S11) */
            rc = fail_closed(err);
            break;
        }
        if (now >= deadline) {
            char text[40];
            rc = respite_fail(err, RESPITE_E_TRANSPORT, "flush ran out of time after %ss with %lld events not sent",
                              respite_format_number(timeout_seconds, text, sizeof text),
                              (long long)(qs.pending + qs.in_flight));
            break;
        }
        double step = deadline - now < 0.05 ? deadline - now : 0.05;
        struct timespec until = respite_http_deadline_in(step);
        pthread_cond_timedwait(&sender->changed, &sender->lock, &until);
    }
    sender->flushes--;
    pthread_mutex_unlock(&sender->lock);
    return rc;
}

int64_t respite_sender_close(respite_sender *sender, respite_error *err)
{
    if (!sender)
        return fail_closed(err), -1;
    if (inherited(sender))
        return 0; /* S15: no event was accepted in this process */
    pthread_mutex_lock(&sender->lock);
    if (!sender->closing) {
        sender->closing = 1;
        atomic_store(&sender->refusing_enqueue, 1);
        double now = respite_now();
        respite_engine_close(sender->engine, now, NULL);
        respite_engine_stats es;
        respite_engine_stats_get(sender->engine, &es, NULL);
        /* S5: a send in flight is cut short at once when paused (a probe),
         * otherwise when close_timeout_seconds runs out. */
        long long at = es.closed_while_paused ? 1 : respite_http_now_us() + (long long)((es.close_deadline - now) * 1e6);
        atomic_store(&sender->abort_at_us, at > 0 ? at : 1);
        curl_multi_wakeup(sender->multi);
        pthread_cond_broadcast(&sender->changed);
    }
    if (!sender->joining && !sender->closed) {
        sender->joining = 1;
        pthread_mutex_unlock(&sender->lock);
        pthread_join(sender->thread, NULL);
        pthread_mutex_lock(&sender->lock);
        forward_events(sender);
        sender->unsent = respite_engine_unsent(sender->engine, NULL);
        if (sender->unsent < 0) /* the thread stopped on an error before DONE */
            sender->unsent = respite_queue_pending(sender->queue, NULL);
        sender->closed = 1;
        pthread_cond_broadcast(&sender->changed);
    }
    while (!sender->closed)
        pthread_cond_wait(&sender->changed, &sender->lock);
    int64_t unsent = sender->unsent;
    pthread_mutex_unlock(&sender->lock);
    return unsent;
}

/* ---------------------------------------------------- figures, events */

int respite_sender_stats_get(respite_sender *sender, respite_sender_stats *out, respite_error *err)
{
    if (!sender)
        return fail_closed(err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must not be NULL");
    memset(out, 0, sizeof *out);
    if (inherited(sender)) { /* S15: closed here, having accepted nothing */
        out->closed = out->queue.closed = 1;
        return RESPITE_OK;
    }
    pthread_mutex_lock(&sender->lock);
    int rc = respite_queue_stats_get(sender->queue, &out->queue, err);
    if (rc == RESPITE_OK)
        rc = respite_engine_stats_get(sender->engine, &out->engine, err);
    if (rc == RESPITE_OK)
        rc = respite_gate_stats_get(sender->gate, &out->gate, err);
    out->requests = sender->requests;
    out->bytes_sent = sender->bytes_sent;
    out->paused = respite_gate_retry_after(sender->gate, respite_now(), NULL) > 0;
    out->closed = sender->closed;
    pthread_mutex_unlock(&sender->lock);
    return rc;
}

int respite_sender_next_event(respite_sender *sender, respite_event *out, respite_error *err)
{
    if (!sender)
        return fail_closed(err), -1;
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must not be NULL"), -1;
    if (inherited(sender))
        return 0; /* S15: the parent's events are the parent's to log */
    pthread_mutex_lock(&sender->lock); /* another process's transitions, while the thread sleeps */
    forward_events(sender);
    pthread_mutex_unlock(&sender->lock);
    return respite_event_ring_pop(&sender->events, out);
}

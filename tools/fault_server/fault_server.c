/* The fault server: libmicrohttpd, one thread per connection so a delayed
 * or hanging answer holds only its own connection. */
#define _GNU_SOURCE
#include "fault_server.h"
#include "fault_script.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <zlib.h>

#define MAX_BODY (64u * 1024u * 1024u)
#define STATUS_SLOTS 600

struct respite_fault_server {
    struct MHD_Daemon *daemon;
    int port;
    char url[64];

    pthread_mutex_t lock;
    pthread_cond_t wake; /* monotonic: delays and hangs wait on it */
    int stopping;
    uint64_t epoch;      /* bumped by reset and stop: ends hangs */
    fault_script script;
    int keep_bodies;
    int64_t requests;
    int64_t body_bytes;
    int64_t counts[STATUS_SLOTS];
    respite_fault_record *records;
    size_t record_count;
    size_t record_cap;
};

/* One request as it arrives. */
typedef struct request_ctx {
    char *body;
    size_t size;
    size_t cap;
    int too_large;
} request_ctx;

static void set_error(char *error, size_t size, const char *fmt, ...)
{
    if (!error || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, size, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ recording */

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    char **text = cls;
    char *grown = NULL;
    if (asprintf(&grown, "%s%s: %s\n", *text ? *text : "", key, value ? value : "") < 0)
        return MHD_NO;
    free(*text);
    *text = grown;
    return MHD_YES;
}

/* Decompresses a gzip body; -1 when it is not valid gzip. */
static int gunzip(const char *in, size_t size, char **out, size_t *out_size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        return -1;
    size_t cap = size * 4 + 64, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        inflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)size;
    int rc = Z_BUF_ERROR; /* a break before any inflate() is a failure */
    do {
        if (len == cap) {
            if (cap >= MAX_BODY)
                break;
            cap *= 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown)
                break;
            buf = grown;
        }
        z.next_out = (Bytef *)buf + len;
        z.avail_out = (uInt)(cap - len);
        rc = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    buf[len] = '\0';
    *out = buf;
    *out_size = len;
    return 0;
}

/* Records the request (lock held); the record's strings are taken over. */
static void record(respite_fault_server *s, respite_fault_record *r)
{
    s->body_bytes += (int64_t)r->body_size;
    if (!s->keep_bodies) {
        free(r->body);
        r->body = strdup("");
    }
    if (s->record_count == s->record_cap) {
        size_t cap = s->record_cap ? s->record_cap * 2 : 64;
        respite_fault_record *grown = realloc(s->records, cap * sizeof *grown);
        if (!grown) {
            respite_fault_record_clear(r);
            return;
        }
        s->records = grown;
        s->record_cap = cap;
    }
    s->records[s->record_count++] = *r;
}

/* ------------------------------------------------------------- answers */

/* Waits up to seconds unless stopped or reset; lock held. */
static void wait_seconds(respite_fault_server *s, double seconds)
{
    if (!(seconds > 0))
        return;
    uint64_t epoch = s->epoch;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)seconds;
    until.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!s->stopping && s->epoch == epoch)
        if (pthread_cond_timedwait(&s->wake, &s->lock, &until) == ETIMEDOUT)
            break;
}

/* Adds the answer's headers, queues it and lets it go. */
static enum MHD_Result queue_answer(struct MHD_Connection *c, int status, struct MHD_Response *resp, const char *type,
                                    const char *retry_after, const char *header)
{
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", type);
    if (retry_after)
        MHD_add_response_header(resp, "Retry-After", retry_after);
    if (header) {
        const char *colon = strchr(header, ':');
        char name[256];
        size_t n = (size_t)(colon - header) < sizeof name - 1 ? (size_t)(colon - header) : sizeof name - 1;
        memcpy(name, header, n);
        name[n] = '\0';
        const char *value = colon + 1;
        while (*value == ' ')
            value++;
        MHD_add_response_header(resp, name, value);
    }
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return rc;
}

static enum MHD_Result send_text(struct MHD_Connection *c, int status, const char *type, const char *body,
                                 size_t size, const char *retry_after, const char *header)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(size, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
    return queue_answer(c, status, resp, type, retry_after, header);
}

/* A streamed body (length=, endless, drip=): a unit repeated, written by
 * libmicrohttpd's reader callback on the connection's thread. */
typedef struct stream_body {
    respite_fault_server *server;
    char *unit;
    size_t unit_size;
    int64_t length; /* -1: endless */
    double drip;
    uint64_t epoch; /* a reset or stop ends the stream */
} stream_body;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    stream_body *b = cls;
    if (b->length >= 0 && pos >= (uint64_t)b->length)
        return MHD_CONTENT_READER_END_OF_STREAM;
    respite_fault_server *s = b->server;
    pthread_mutex_lock(&s->lock);
    wait_seconds(s, b->drip);
    int ended = s->stopping || s->epoch != b->epoch;
    pthread_mutex_unlock(&s->lock);
    if (ended)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = b->drip > 0 && max > 64 ? 64 : max;
    if (b->length >= 0 && (uint64_t)n > (uint64_t)b->length - pos)
        n = (size_t)((uint64_t)b->length - pos);
    for (size_t i = 0; i < n; i++)
        buf[i] = b->unit[(pos + i) % b->unit_size];
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    stream_body *b = cls;
    free(b->unit);
    free(b);
}

static enum MHD_Result send_stream(respite_fault_server *s, struct MHD_Connection *c, int status, const fault_answer *a,
                                   const char *body, uint64_t epoch, const char *retry_after, const char *header)
{
    stream_body *b = calloc(1, sizeof *b);
    if (!b || !(b->unit = strdup(body && *body ? body : "x"))) {
        free(b);
        return MHD_NO;
    }
    b->server = s;
    b->unit_size = strlen(b->unit);
    b->length = a->endless ? -1 : a->length > 0 ? a->length : (int64_t)b->unit_size;
    b->drip = a->drip;
    b->epoch = epoch;
    struct MHD_Response *resp = MHD_create_response_from_callback(
        b->length < 0 ? MHD_SIZE_UNKNOWN : (uint64_t)b->length, 16 * 1024, stream_read, b, stream_free);
    if (!resp)
        stream_free(b);
    return queue_answer(c, status, resp, "text/plain", retry_after, header);
}

static void reset_connection(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info) {
        struct linger lg = {1, 0}; /* close() then sends RST, not FIN */
        setsockopt(info->connect_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
}

/* A path whose first segment is a status (`/503`, `/429/items`) asks for that
 * status whatever the script says, so an example or a test can ask for a
 * fault by its URL alone (the docs runner's service URLs). 0: not such a path. */
static int status_of_path(const char *path)
{
    if (path[0] != '/' || !isdigit((unsigned char)path[1]) || !isdigit((unsigned char)path[2]) ||
        !isdigit((unsigned char)path[3]) || (path[4] != '\0' && path[4] != '/'))
        return 0;
    int status = (path[1] - '0') * 100 + (path[2] - '0') * 10 + (path[3] - '0');
    return status >= 200 && status <= 599 ? status : 0;
}

static enum MHD_Result answer_scripted(respite_fault_server *s, struct MHD_Connection *c, const char *method,
                                       const char *path, request_ctx *ctx)
{
    respite_fault_record r;
    memset(&r, 0, sizeof r);
    r.method = strdup(method);
    r.path = strdup(path);
    MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &r.headers);
    if (!r.headers)
        r.headers = strdup("");
    const char *encoding = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding");
    r.gzip = encoding && strcasestr(encoding, "gzip") != NULL;
    if (r.gzip && ctx->size > 0 && gunzip(ctx->body, ctx->size, &r.body, &r.body_size) == 0) {
        /* decoded */
    } else {
        r.decode_error = r.gzip && ctx->size > 0;
        r.body = malloc(ctx->size + 1);
        if (r.body) {
            if (ctx->size)
                memcpy(r.body, ctx->body, ctx->size);
            r.body[ctx->size] = '\0';
            r.body_size = ctx->size;
        }
    }

    pthread_mutex_lock(&s->lock);
    s->requests++;
    fault_answer a;
    int by_path = status_of_path(path);
    if (by_path) {
        memset(&a, 0, sizeof a);
        a.kind = FAULT_STATUS;
        a.status = by_path;
        a.retry_after = (char *)MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "retry_after");
    } else {
        a = *fault_script_next(&s->script);
    }
    /* Copies: the script may be replaced while this answer waits. */
    char *body = a.body ? strdup(a.body) : NULL;
    char *retry_after = a.retry_after ? strdup(a.retry_after) : NULL;
    char *header = a.header ? strdup(a.header) : NULL;
    int status = ctx->too_large ? 413 : (a.kind == FAULT_STATUS || a.kind == FAULT_GARBAGE ? a.status : 0);
    r.status = status;
    s->counts[status]++;
    record(s, &r);
    wait_seconds(s, a.delay);
    uint64_t epoch = s->epoch;
    pthread_mutex_unlock(&s->lock);

    enum MHD_Result rc;
    if (status == 0) {
        if (a.kind == FAULT_RESET)
            reset_connection(c);
        rc = MHD_NO; /* closes the connection without an answer */
    } else if (a.length > 0 || a.endless || a.drip > 0) {
        rc = send_stream(s, c, status, &a, body, epoch, retry_after, header);
    } else if (a.kind == FAULT_GARBAGE) {
        char junk[64];
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (char)(0x80 + (i * 37) % 127);
        rc = send_text(c, status, "application/json", junk, sizeof junk, retry_after, header);
    } else {
        char text[64];
        const char *answer = body;
        if (!answer) {
            snprintf(text, sizeof text, "%d\n", status);
            answer = text;
        }
        rc = send_text(c, status, "text/plain", answer, strlen(answer), retry_after, header);
    }
    free(body);
    free(retry_after);
    free(header);
    return rc;
}

/* ------------------------------------------------------------- control */

static enum MHD_Result answer_control(respite_fault_server *s, struct MHD_Connection *c, const char *method,
                                      const char *path, request_ctx *ctx)
{
    const char *name = path + strlen("/__control/");
    if (strcmp(name, "script") == 0 && strcmp(method, "POST") == 0) {
        char *text = strndup(ctx->body ? ctx->body : "", ctx->size);
        char error[512] = "";
        int rc = text ? respite_fault_server_set_script(s, text, error, sizeof error) : -1;
        free(text);
        if (rc != 0) {
            strncat(error, "\n", sizeof error - strlen(error) - 1);
            return send_text(c, 400, "text/plain", error, strlen(error), NULL, NULL);
        }
        return send_text(c, 200, "text/plain", "ok\n", 3, NULL, NULL);
    }
    if (strcmp(name, "reset") == 0 && strcmp(method, "POST") == 0) {
        respite_fault_server_reset(s);
        return send_text(c, 200, "text/plain", "ok\n", 3, NULL, NULL);
    }
    if (strcmp(name, "stats") == 0 && strcmp(method, "GET") == 0) {
        const char *bodies = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "bodies");
        char *json = respite_fault_server_stats_json(s, !(bodies && strcmp(bodies, "0") == 0));
        if (!json)
            return send_text(c, 500, "text/plain", "out of memory\n", 14, NULL, NULL);
        enum MHD_Result rc = send_text(c, 200, "application/json", json, strlen(json), NULL, NULL);
        free(json);
        return rc;
    }
    const char *help = "control: POST /__control/script, GET /__control/stats[?bodies=0], POST /__control/reset\n";
    return send_text(c, 404, "text/plain", help, strlen(help), NULL, NULL);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    respite_fault_server *s = cls;
    request_ctx *ctx = *con_cls;
    if (!ctx) {
        ctx = calloc(1, sizeof *ctx);
        if (!ctx)
            return MHD_NO;
        *con_cls = ctx;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (ctx->too_large || ctx->size + n > MAX_BODY) {
            ctx->too_large = 1;
            return MHD_YES;
        }
        if (ctx->size + n + 1 > ctx->cap) {
            size_t cap = ctx->cap ? ctx->cap : 4096;
            while (cap < ctx->size + n + 1)
                cap *= 2;
            char *grown = realloc(ctx->body, cap);
            if (!grown)
                return MHD_NO;
            ctx->body = grown;
            ctx->cap = cap;
        }
        memcpy(ctx->body + ctx->size, upload_data, n);
        ctx->size += n;
        return MHD_YES;
    }
    if (strncmp(url, "/__control/", 11) == 0)
        return answer_control(s, c, method, url, ctx);
    return answer_scripted(s, c, method, url, ctx);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    request_ctx *ctx = *con_cls;
    if (ctx) {
        free(ctx->body);
        free(ctx);
        *con_cls = NULL;
    }
}

/* ----------------------------------------------------------- lifecycle */

respite_fault_server *respite_fault_server_start(int port, char *error, size_t error_size)
{
    if (port < 0 || port > 65535) {
        set_error(error, error_size, "port must be from 0 to 65535 (got %d)", port);
        return NULL;
    }
    respite_fault_server *s = calloc(1, sizeof *s);
    if (!s) {
        set_error(error, error_size, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &attr);
    pthread_condattr_destroy(&attr);
    s->keep_bodies = 1;
    if (fault_script_parse("healthy", &s->script, error, error_size) != 0) {
        respite_fault_server_stop(s);
        return NULL;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                                 on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_CONNECTION_TIMEOUT,
                                 (unsigned int)120, MHD_OPTION_END);
    if (!s->daemon) {
        set_error(error, error_size, "could not listen on 127.0.0.1:%d", port);
        respite_fault_server_stop(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : port;
    snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d/", s->port);
    return s;
}

void respite_fault_server_stop(respite_fault_server *server)
{
    if (!server)
        return;
    pthread_mutex_lock(&server->lock);
    server->stopping = 1;
    server->epoch++;
    pthread_cond_broadcast(&server->wake);
    pthread_mutex_unlock(&server->lock);
    if (server->daemon)
        MHD_stop_daemon(server->daemon);
    for (size_t i = 0; i < server->record_count; i++)
        respite_fault_record_clear(&server->records[i]);
    free(server->records);
    fault_script_free(&server->script);
    pthread_cond_destroy(&server->wake);
    pthread_mutex_destroy(&server->lock);
    free(server);
}

int respite_fault_server_port(const respite_fault_server *server)
{
    return server ? server->port : 0;
}

const char *respite_fault_server_url(const respite_fault_server *server)
{
    return server ? server->url : "";
}

int respite_fault_server_set_script(respite_fault_server *server, const char *script, char *error,
                                    size_t error_size)
{
    fault_script parsed;
    if (fault_script_parse(script, &parsed, error, error_size) != 0)
        return -1;
    pthread_mutex_lock(&server->lock);
    fault_script_free(&server->script);
    server->script = parsed;
    pthread_mutex_unlock(&server->lock);
    return 0;
}

void respite_fault_server_reset(respite_fault_server *server)
{
    fault_script healthy;
    if (fault_script_parse("healthy", &healthy, NULL, 0) != 0)
        return;
    pthread_mutex_lock(&server->lock);
    fault_script_free(&server->script);
    server->script = healthy;
    for (size_t i = 0; i < server->record_count; i++)
        respite_fault_record_clear(&server->records[i]);
    server->record_count = 0;
    server->requests = 0;
    server->body_bytes = 0;
    memset(server->counts, 0, sizeof server->counts);
    server->epoch++;
    pthread_cond_broadcast(&server->wake);
    pthread_mutex_unlock(&server->lock);
}

void respite_fault_server_set_keep_bodies(respite_fault_server *server, int keep_bodies)
{
    pthread_mutex_lock(&server->lock);
    server->keep_bodies = keep_bodies != 0;
    pthread_mutex_unlock(&server->lock);
}

int64_t respite_fault_server_requests(respite_fault_server *server)
{
    pthread_mutex_lock(&server->lock);
    int64_t n = server->requests;
    pthread_mutex_unlock(&server->lock);
    return n;
}

int64_t respite_fault_server_count(respite_fault_server *server, int status)
{
    if (status < 0 || status >= STATUS_SLOTS)
        return 0;
    pthread_mutex_lock(&server->lock);
    int64_t n = server->counts[status];
    pthread_mutex_unlock(&server->lock);
    return n;
}

int64_t respite_fault_server_body_bytes(respite_fault_server *server)
{
    pthread_mutex_lock(&server->lock);
    int64_t n = server->body_bytes;
    pthread_mutex_unlock(&server->lock);
    return n;
}

size_t respite_fault_server_record_count(respite_fault_server *server)
{
    pthread_mutex_lock(&server->lock);
    size_t n = server->record_count;
    pthread_mutex_unlock(&server->lock);
    return n;
}

static char *copy_bytes(const char *src, size_t size)
{
    char *dst = malloc(size + 1);
    if (dst) {
        if (size)
            memcpy(dst, src, size);
        dst[size] = '\0';
    }
    return dst;
}

int respite_fault_server_record(respite_fault_server *server, size_t index, respite_fault_record *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&server->lock);
    if (index >= server->record_count) {
        pthread_mutex_unlock(&server->lock);
        return -1;
    }
    const respite_fault_record *r = &server->records[index];
    *out = *r;
    out->method = strdup(r->method ? r->method : "");
    out->path = strdup(r->path ? r->path : "");
    out->headers = strdup(r->headers ? r->headers : "");
    out->body = copy_bytes(r->body ? r->body : "", r->body ? r->body_size : 0);
    pthread_mutex_unlock(&server->lock);
    return 0;
}

void respite_fault_record_clear(respite_fault_record *record)
{
    if (!record)
        return;
    free(record->method);
    free(record->path);
    free(record->headers);
    free(record->body);
    memset(record, 0, sizeof *record);
}

int respite_fault_record_header(const respite_fault_record *record, const char *name, char *buf, size_t size)
{
    size_t name_len = strlen(name);
    const char *p = record->headers;
    int found = 0;
    while (p && *p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > name_len && p[name_len] == ':' && strncasecmp(p, name, name_len) == 0) {
            const char *value = p + name_len + 1;
            while (*value == ' ')
                value++;
            size_t n = len - (size_t)(value - p);
            if (size) {
                if (n >= size)
                    n = size - 1;
                memcpy(buf, value, n);
                buf[n] = '\0';
            }
            found = 1; /* the last one wins */
        }
        p = end ? end + 1 : NULL;
    }
    return found;
}

/* ------------------------------------------------------------- stats */

static json_t *headers_object(const char *text)
{
    json_t *obj = json_object();
    const char *p = text;
    while (p && *p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        if (colon) {
            char *name = strndup(p, (size_t)(colon - p));
            const char *value = colon + 1;
            while (*value == ' ')
                value++;
            json_t *v = json_stringn(value, len - (size_t)(value - p));
            if (name && v)
                json_object_set_new(obj, name, v);
            else
                json_decref(v);
            free(name);
        }
        p = end ? end + 1 : NULL;
    }
    return obj;
}

char *respite_fault_server_stats_json(respite_fault_server *server, int with_bodies)
{
    json_t *root = json_object();
    json_t *statuses = json_object();
    json_t *received = json_array();
    pthread_mutex_lock(&server->lock);
    json_object_set_new(root, "requests", json_integer(server->requests));
    json_object_set_new(root, "body_bytes", json_integer(server->body_bytes));
    for (int i = 0; i < STATUS_SLOTS; i++) {
        if (!server->counts[i])
            continue;
        char key[8];
        snprintf(key, sizeof key, "%d", i);
        json_object_set_new(statuses, key, json_integer(server->counts[i]));
    }
    for (size_t i = 0; i < server->record_count; i++) {
        const respite_fault_record *r = &server->records[i];
        json_t *item = json_object();
        json_object_set_new(item, "method", json_string(r->method ? r->method : ""));
        json_object_set_new(item, "path", json_string(r->path ? r->path : ""));
        json_object_set_new(item, "status", json_integer(r->status));
        json_object_set_new(item, "gzip", json_boolean(r->gzip));
        json_object_set_new(item, "headers", headers_object(r->headers));
        json_object_set_new(item, "body_size", json_integer((json_int_t)r->body_size));
        if (with_bodies && r->body) {
            json_t *body = json_stringn(r->body, r->body_size);
            if (body) {
                json_object_set_new(item, "body", body);
            } else { /* not UTF-8: hex */
                char *hex = malloc(r->body_size * 2 + 1);
                for (size_t j = 0; hex && j < r->body_size; j++)
                    snprintf(hex + 2 * j, 3, "%02x", (unsigned char)r->body[j]);
                if (hex) {
                    hex[r->body_size * 2] = '\0';
                    json_object_set_new(item, "body_hex", json_string(hex));
                }
                free(hex);
            }
        }
        json_array_append_new(received, item);
    }
    pthread_mutex_unlock(&server->lock);
    json_object_set_new(root, "statuses", statuses);
    json_object_set_new(root, "received", received);
    char *text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return text;
}

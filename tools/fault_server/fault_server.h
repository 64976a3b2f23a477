/*
 * fault_server.h - a fault-injecting HTTP server for respite's tests, the
 * benchmarks and `respite demo` (libmicrohttpd, 127.0.0.1 only).
 *
 * Every request that is not under /__control/ is answered by the script (a
 * list of steps, each answering one or more requests; the last step answers
 * every request after it) and recorded: method, path, headers, body (gzip
 * bodies decompressed) and the status it was answered with. The script
 * language and the HTTP control protocol are in tools/fault_server/README.md.
 *
 * Thread safety: every function may be called from any thread while the
 * server runs.
 */
#ifndef RESPITE_FAULT_SERVER_H
#define RESPITE_FAULT_SERVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_fault_server respite_fault_server;

/* One recorded request. status: the status answered, 0 when the request got
 * no answer (hang, reset, close). Strings are the server's copies: free
 * them with respite_fault_record_clear. */
typedef struct respite_fault_record {
    char *method;
    char *path;
    char *headers;     /* "Name: value\n" lines as received */
    char *body;        /* decoded (gunzipped) body, NUL-terminated */
    size_t body_size;
    int status;
    int gzip;          /* 1 when the body came with Content-Encoding: gzip */
    int decode_error;  /* 1 when a gzip body could not be decompressed */
} respite_fault_record;

/* Starts on 127.0.0.1:port (0: any free port) with the script "healthy".
 * NULL and a message in error on failure. */
respite_fault_server *respite_fault_server_start(int port, char *error, size_t error_size);
/* Wakes every delayed or hanging answer, stops and frees. NULL: no-op. */
void respite_fault_server_stop(respite_fault_server *server);

int respite_fault_server_port(const respite_fault_server *server);
/* "http://127.0.0.1:<port>/" */
const char *respite_fault_server_url(const respite_fault_server *server);

/* Replaces the script (text, or a JSON array of step strings) and starts it
 * from its first step. 0, or -1 with a message naming the bad step. */
int respite_fault_server_set_script(respite_fault_server *server, const char *script, char *error,
                                    size_t error_size);

/* Script back to "healthy", counts and records cleared, hangs woken. */
void respite_fault_server_reset(respite_fault_server *server);

/* keep_bodies 0: record requests without their bodies (benchmarks). */
void respite_fault_server_set_keep_bodies(respite_fault_server *server, int keep_bodies);

/* Requests received (control requests excluded). */
int64_t respite_fault_server_requests(respite_fault_server *server);
/* Requests answered with this status (0: not answered). */
int64_t respite_fault_server_count(respite_fault_server *server, int status);
/* Total bytes of decoded bodies received. */
int64_t respite_fault_server_body_bytes(respite_fault_server *server);

/* Requests recorded so far, and a copy of record `index` (0 or -1). */
size_t respite_fault_server_record_count(respite_fault_server *server);
int respite_fault_server_record(respite_fault_server *server, size_t index, respite_fault_record *out);
void respite_fault_record_clear(respite_fault_record *record);

/* The value of a header in record->headers (case-insensitive), copied into
 * buf; 1 when found, 0 when not. */
int respite_fault_record_header(const respite_fault_record *record, const char *name, char *buf, size_t size);

/* The statistics document GET /__control/stats answers (README.md); free
 * with free(). with_bodies 0 leaves the bodies out. */
char *respite_fault_server_stats_json(respite_fault_server *server, int with_bodies);

#ifdef __cplusplus
}
#endif

#endif

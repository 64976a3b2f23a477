/* The fleet module's parts (docs/spec.md section 11): where Redis is, the
 * one script every exchange runs, and the connection that runs it. */
#ifndef RESPITE_FLEET_INTERNAL_H
#define RESPITE_FLEET_INTERNAL_H

#include "../internal.h"

#include <stdbool.h>

/* fleet_url, parsed (F2). */
typedef struct fleet_endpoint {
    char host[256];
    int port;
    int db;
    char password[256]; /* "" for none */
} fleet_endpoint;

/* RESPITE_OK, or invalid_setting on fleet_url. */
int fleet_url_parse(const char *url, fleet_endpoint *out, respite_error *err);

/* The Lua script of every exchange (F3): its text, its keys and arguments. */
extern const char fleet_script[];
enum { FLEET_KEY_STATE, FLEET_KEY_HOSTS, FLEET_KEY_PAUSE, FLEET_KEY_PROBE, FLEET_KEYS };

/* What this host tells the fleet in one exchange. */
typedef struct fleet_report {
    bool opened;           /* this host's gate opened since the last exchange */
    const char *outcome;   /* the probe this host held: "success", "failure" or "" */
    bool want_probe;       /* take the probe lease if the pause ended and nobody holds it */
    bool probe_admitted;   /* this host's probe is out: hold the lease for probe_timeout */
} fleet_report;

/* The fleet's numbers, from the gate's settings. */
typedef struct fleet_rules {
    double window;        /* failures_window_seconds */
    int quorum;
    double recovery;      /* R */
    double multiplier;    /* M */
    double max_recovery;  /* Rmax */
    double short_lease;   /* the lease before this host's probe is out (F8) */
    double probe_lease;   /* once it is out: probe_timeout_seconds and slack */
    double keep;          /* how long the fleet's keys outlive their last update */
} fleet_rules;

/* What the fleet is, as one exchange read it. */
typedef struct fleet_reply {
    bool paused;
    double pause_left;    /* seconds; 0 when the pause ended or there is none */
    char holder[RESPITE_NAME_MAX];
    int64_t epoch;
    int hosts_opened;
    double pause;         /* the current fleet pause length */
} fleet_reply;

/* A connection to Redis; every wait on it is bounded by `timeout`. */
typedef struct fleet_store fleet_store;

fleet_store *fleet_store_new(const fleet_endpoint *endpoint, const char *gate_name, double timeout);
void fleet_store_free(fleet_store *store);

/* The connection, made when needed; NULL when it cannot be (then
 * `why` says why, when given). */
struct redisContext;
struct redisContext *fleet_store_connection(fleet_store *store, char *why, size_t size);

/* The store's key k (a FLEET_KEY_*). */
const char *fleet_store_key(const fleet_store *store, int k);

/* Connects when needed and runs the script once: 0 and *reply, or -1 (the
 * connection is dropped; the next exchange reconnects). */
int fleet_store_exchange(fleet_store *store, const char *host, const fleet_report *report, const fleet_rules *rules,
                         fleet_reply *reply);

#endif

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

/* A gate's key (or channel) `what`: "respite:{<name>}:<what>", one hash
 * tag for all of them (F1). */
void fleet_key_name(const char *gate_name, const char *what, char *buf, size_t size);

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

/* A connection to the endpoint, AUTH sent when it has a password; every
 * wait on it (connect, each command) bounded by `timeout` seconds. NULL
 * when it cannot be made (then `why` says why, when given). */
struct redisContext;
struct redisContext *fleet_connect(const fleet_endpoint *endpoint, double timeout, char *why, size_t size);

/* A connection to Redis; every wait on it is bounded by `timeout`. */
typedef struct fleet_store fleet_store;

fleet_store *fleet_store_new(const fleet_endpoint *endpoint, const char *gate_name, double timeout);
void fleet_store_free(fleet_store *store);

/* The connection, made when needed; NULL when it cannot be (then
 * `why` says why, when given). */
struct redisContext *fleet_store_connection(fleet_store *store, char *why, size_t size);

/* The store's key k (a FLEET_KEY_*). */
const char *fleet_store_key(const fleet_store *store, int k);

/* Connects when needed and runs the script once: 0 and *reply, or -1 (the
 * connection is dropped; the next exchange reconnects). */
int fleet_store_exchange(fleet_store *store, const char *host, const fleet_report *report, const fleet_rules *rules,
                         fleet_reply *reply);

/* The change notices of one gate (F13): a second connection SUBSCRIBEd to
 * its channel "respite:{<name>}:changes", on which each exchange that
 * changed the fleet's state PUBLISHes the exchanging host's id. Only the
 * fleet thread uses it; every wait is bounded by `timeout`. */
typedef struct fleet_changes fleet_changes;

fleet_changes *fleet_changes_new(const fleet_endpoint *endpoint, const char *gate_name, double timeout);
void fleet_changes_free(fleet_changes *changes);

/* Subscribes when not subscribed, at most once per retry delay (growing
 * while subscribing fails: pub/sub may be disabled); `now` is respite_now(). */
void fleet_changes_subscribe(fleet_changes *changes, double now);

/* The subscribed connection's socket to poll for reading; -1 when none. */
int fleet_changes_fd(const fleet_changes *changes);

/* After a poll found the socket readable: reads what arrived. The number of
 * notices from hosts other than own_host (0 or more), or -1 when the
 * subscription was lost (dropped; subscribe makes it again). */
int fleet_changes_read(fleet_changes *changes, const char *own_host);

/* Drops the subscription (the store was lost: it is made again on rejoining). */
void fleet_changes_drop(fleet_changes *changes);

#endif

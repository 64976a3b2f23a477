/*
 * respite/fleet.h - a gate shared by a fleet of hosts through Redis
 * (docs/spec.md section 11, rules F1-F12), in the library respite_fleet
 * (hiredis); the logic core does not need it.
 *
 * A fleet gate is a local gate (respite_gate, in-process or host-shared)
 * plus a background thread that shares its openings with the other hosts
 * through one Redis server. Calls go through the local gate exactly as
 * before (respite_gate_admit / respite_gate_report on
 * respite_fleet_gate_gate): they never wait on Redis. The thread pauses the
 * local gate when a quorum of hosts opened theirs (the event fleet_paused),
 * lets it probe only while this host holds the fleet's one probe lease, and
 * ends the pause when another host's probe succeeded. When Redis is
 * unreachable or slow, the local gate decides alone (fleet_store_lost) until
 * Redis answers again (fleet_rejoined).
 */
#ifndef RESPITE_FLEET_H
#define RESPITE_FLEET_H

#include "respite/common.h"
#include "respite/gate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_fleet_gate respite_fleet_gate;

/* A fleet gate from "gate" settings (its `name`, required, names its Redis
 * keys) and "fleet" settings (fleet_url required). Connecting is the
 * thread's work: a Redis that is down does not fail this call. NULL and err
 * for invalid settings (F1, F2). */
RESPITE_API respite_fleet_gate *respite_fleet_gate_new(const respite_settings *gate_settings,
                                                       const respite_settings *fleet_settings, respite_error *err);

/* Stops the thread (waiting for the exchange under way: a few
 * fleet_refresh_seconds at most) and drops the
 * fleet gate's reference to its local gate. NULL: no-op. */
RESPITE_API void respite_fleet_gate_free(respite_fleet_gate *fleet);

/* The local gate every call goes through; borrowed: it lives while the
 * fleet gate does (respite_gate_retain to keep it longer). NULL for NULL. */
RESPITE_API respite_gate *respite_fleet_gate_gate(respite_fleet_gate *fleet);

/* The fleet as this host's thread last read it. */
typedef struct respite_fleet_view {
    int connected;                     /* 1: the last exchange with Redis succeeded */
    int paused;                        /* 1: the fleet is paused (its pause or its probe runs) */
    double pause_left;                 /* seconds left of the fleet's pause when read; 0 otherwise */
    int hosts_opened;                  /* hosts whose gates opened within the window, this host included */
    int holds_probe;                   /* 1: this host holds the fleet's probe lease */
    char probe_host[RESPITE_NAME_MAX]; /* the host holding it; "" for none */
    char host_id[RESPITE_NAME_MAX];    /* this host's id (fleet_host_id, or the host's name) */
    int64_t epoch;                     /* the fleet's pauses and recoveries so far */
    int64_t exchanges;                 /* scripts Redis answered */
    int64_t failed_exchanges;          /* connections or scripts that failed or timed out */
} respite_fleet_view;

RESPITE_API int respite_fleet_gate_view(respite_fleet_gate *fleet, respite_fleet_view *out, respite_error *err);

/* Hosts one read lists at most. */
#define RESPITE_FLEET_HOSTS_MAX 32

/* A host whose gate opened within the fleet's window. */
typedef struct respite_fleet_host {
    char id[RESPITE_NAME_MAX];
    double opened_ago; /* seconds since it opened, on Redis's clock */
} respite_fleet_host;

/* One fleet gate's state in Redis, as respite_fleet_read sees it. */
typedef struct respite_fleet_info {
    int paused;                        /* 1: paused (its pause, or its probe, runs) */
    double pause_left;                 /* seconds left of the pause; 0 when it ended or none */
    double pause;                      /* the current pause length */
    int64_t epoch;                     /* pauses and recoveries so far */
    char probe_host[RESPITE_NAME_MAX]; /* the probe lease's holder; "" for none */
    double lease_left;                 /* seconds left of its lease */
    int hosts;                         /* hosts with a recorded opening (may exceed the list) */
    respite_fleet_host host[RESPITE_FLEET_HOSTS_MAX]; /* the first of them, newest first */
} respite_fleet_info;

/* Reads the fleet state of the gate named `name` from the Redis of these
 * fleet settings without joining it (what `respite gates` shows an
 * operator, F12); waits at most fleet_refresh_seconds per step. RESPITE_OK;
 * invalid_setting for a bad fleet_url; transport when Redis cannot be
 * read ("cannot read the fleet of gate \"billing\" at 127.0.0.1:6379: ..."). */
RESPITE_API int respite_fleet_read(const respite_settings *fleet_settings, const char *name, respite_fleet_info *out,
                                   respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_FLEET_H */

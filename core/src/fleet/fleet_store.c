/* The connection to Redis (docs/spec.md F10): every connect and every
 * command waits at most `timeout` (fleet_refresh_seconds); a failure drops
 * the connection and the next exchange makes a new one. Only the fleet
 * thread uses it. */
#include "fleet_internal.h"

#include <hiredis.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fleet_store {
    fleet_endpoint endpoint;
    double timeout;
    redisContext *context;
    char sha[48]; /* the script's SHA1 on this connection ("" until loaded) */
    char keys[FLEET_KEYS][RESPITE_NAME_MAX + 32];
    char channel[RESPITE_NAME_MAX + 32]; /* where the script publishes changes (F13) */
};

void fleet_key_name(const char *gate_name, const char *what, char *buf, size_t size)
{
    /* One hash tag: a Redis Cluster keeps a gate's keys on one node, so one script may touch them all. */
    snprintf(buf, size, "respite:{%s}:%s", gate_name, what);
}

fleet_store *fleet_store_new(const fleet_endpoint *endpoint, const char *gate_name, double timeout)
{
    fleet_store *store = calloc(1, sizeof *store);
    if (!store)
        return NULL;
    store->endpoint = *endpoint;
    store->timeout = timeout;
    static const char *const suffix[FLEET_KEYS] = {"state", "hosts", "pause", "probe"};
    for (int i = 0; i < FLEET_KEYS; i++)
        fleet_key_name(gate_name, suffix[i], store->keys[i], sizeof store->keys[i]);
    fleet_key_name(gate_name, "changes", store->channel, sizeof store->channel);
    return store;
}

static void drop(fleet_store *store)
{
    if (store->context)
        redisFree(store->context);
    store->context = NULL;
    store->sha[0] = '\0';
}

void fleet_store_free(fleet_store *store)
{
    if (!store)
        return;
    drop(store);
    free(store);
}

/* A command whose reply must not be an error; false drops nothing itself. */
static bool command_ok(redisContext *c, redisReply **out, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    redisReply *reply = redisvCommand(c, format, args);
    va_end(args);
    bool ok = reply && reply->type != REDIS_REPLY_ERROR;
    if (out && ok)
        *out = reply;
    else if (reply)
        freeReplyObject(reply);
    return ok;
}

redisContext *fleet_connect(const fleet_endpoint *endpoint, double timeout, char *why, size_t size)
{
    struct timeval limit = {(time_t)timeout, (suseconds_t)((timeout - floor(timeout)) * 1e6)};
    if (limit.tv_sec == 0 && limit.tv_usec < 1000)
        limit.tv_usec = 1000;
    redisContext *c = redisConnectWithTimeout(endpoint->host, endpoint->port, limit);
    if (!c || c->err || redisSetTimeout(c, limit) != REDIS_OK) {
        if (why)
            respite_copy_text(why, size, c && c->errstr[0] ? c->errstr : "cannot connect");
        if (c)
            redisFree(c);
        return NULL;
    }
    if (endpoint->password[0] && !command_ok(c, NULL, "AUTH %s", endpoint->password)) {
        if (why)
            respite_copy_text(why, size, c->errstr[0] ? c->errstr : "AUTH refused");
        redisFree(c);
        return NULL;
    }
    return c;
}

static bool connect_store(fleet_store *store, char *why, size_t size)
{
    redisContext *c = fleet_connect(&store->endpoint, store->timeout, why, size);
    if (!c)
        return false;
    store->context = c;
    if (store->endpoint.db != 0 && !command_ok(c, NULL, "SELECT %d", store->endpoint.db)) {
        if (why)
            respite_copy_text(why, size, c->errstr[0] ? c->errstr : "SELECT refused");
        drop(store);
        return false;
    }
    redisReply *reply = NULL;
    if (!command_ok(c, &reply, "SCRIPT LOAD %s", fleet_script) || reply->type != REDIS_REPLY_STRING) {
        if (why)
            respite_copy_text(why, size, "SCRIPT LOAD refused");
        if (reply)
            freeReplyObject(reply);
        drop(store);
        return false;
    }
    respite_copy_text(store->sha, sizeof store->sha, reply->str);
    freeReplyObject(reply);
    return true;
}

redisContext *fleet_store_connection(fleet_store *store, char *why, size_t size)
{
    if (!store->context)
        connect_store(store, why, size);
    return store->context;
}

const char *fleet_store_key(const fleet_store *store, int k)
{
    return store->keys[k];
}

static int64_t integer_at(const redisReply *r, size_t i)
{
    return r->element[i]->type == REDIS_REPLY_INTEGER ? (int64_t)r->element[i]->integer : 0;
}

static bool read_reply(const redisReply *r, fleet_reply *out)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 6 || r->element[2]->type != REDIS_REPLY_STRING)
        return false;
    out->paused = integer_at(r, 0) != 0;
    out->pause_left = (double)integer_at(r, 1) / 1000.0;
    respite_copy_text(out->holder, sizeof out->holder, r->element[2]->str);
    out->epoch = integer_at(r, 3);
    out->hosts_opened = (int)integer_at(r, 4);
    out->pause = (double)integer_at(r, 5) / 1000.0;
    return true;
}

static void ms_text(double seconds, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", (long long)ceil(seconds * 1000.0));
}

int fleet_store_exchange(fleet_store *store, const char *host, const fleet_report *report, const fleet_rules *rules,
                         fleet_reply *out)
{
    if (!store->context && !connect_store(store, NULL, 0))
        return -1;
    char window[24], quorum[24], r[24], m[40], rmax[24], short_lease[24], probe_lease[24], keep[24];
    ms_text(rules->window, window, sizeof window);
    snprintf(quorum, sizeof quorum, "%d", rules->quorum);
    ms_text(rules->recovery, r, sizeof r);
    respite_format_number(rules->multiplier, m, sizeof m);
    ms_text(rules->max_recovery, rmax, sizeof rmax);
    ms_text(rules->short_lease, short_lease, sizeof short_lease);
    ms_text(rules->probe_lease, probe_lease, sizeof probe_lease);
    ms_text(rules->keep, keep, sizeof keep);
    const char *argv[] = {"EVALSHA", store->sha, "4", store->keys[0], store->keys[1], store->keys[2],
                          store->keys[3], host, report->opened ? "1" : "0", report->outcome,
                          report->want_probe ? "1" : "0", report->probe_admitted ? "1" : "0", window, quorum, r, m,
                          rmax, short_lease, probe_lease, keep, store->channel};
    int argc = (int)(sizeof argv / sizeof argv[0]);
    redisReply *reply = redisCommandArgv(store->context, argc, argv, NULL);
    if (reply && reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "NOSCRIPT", 8) == 0) {
        freeReplyObject(reply); /* the scripts were flushed: send the text once more */
        argv[0] = "EVAL";
        argv[1] = fleet_script;
        reply = redisCommandArgv(store->context, argc, argv, NULL);
    }
    bool ok = reply && read_reply(reply, out);
    if (reply)
        freeReplyObject(reply);
    if (!ok)
        drop(store);
    return ok ? 0 : -1;
}

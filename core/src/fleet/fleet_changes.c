/* A fleet gate's change notices (docs/spec.md F13): a second connection to
 * Redis SUBSCRIBEd to "respite:{<name>}:changes", which the exchange script
 * PUBLISHes the exchanging host's id on when it changed the fleet's state.
 * The fleet thread polls its socket next to its own wake-ups and exchanges
 * at once on a notice from another host. Polling every
 * fleet_refresh_seconds stays the fallback: a subscription that cannot be
 * made (pub/sub disabled or renamed) or is lost only costs that delay, and
 * is tried again after a delay that doubles up to a minute. */
#include "fleet_internal.h"

#include <hiredis.h>
#include <stdlib.h>
#include <string.h>

#define RETRY_MAX_SECONDS 60.0

struct fleet_changes {
    fleet_endpoint endpoint;
    double timeout;
    char channel[RESPITE_NAME_MAX + 32];
    redisContext *context; /* subscribed, or NULL */
    double retry_at;       /* respite_now() when the next subscribe may be tried */
    double retry_delay;    /* grows while subscribing fails */
};

fleet_changes *fleet_changes_new(const fleet_endpoint *endpoint, const char *gate_name, double timeout)
{
    fleet_changes *changes = calloc(1, sizeof *changes);
    if (!changes)
        return NULL;
    changes->endpoint = *endpoint;
    changes->timeout = timeout;
    fleet_key_name(gate_name, "changes", changes->channel, sizeof changes->channel);
    return changes;
}

void fleet_changes_drop(fleet_changes *changes)
{
    if (changes->context)
        redisFree(changes->context);
    changes->context = NULL;
    changes->retry_at = 0; /* subscribe again as soon as the store answers (F11) */
}

/* Lost while reading: try again a refresh later, not in a loop with a
 * server that closes subscriptions. */
static int lost(fleet_changes *changes)
{
    fleet_changes_drop(changes);
    changes->retry_at = respite_now() + changes->timeout;
    return -1;
}

void fleet_changes_free(fleet_changes *changes)
{
    if (!changes)
        return;
    fleet_changes_drop(changes);
    free(changes);
}

/* ["subscribe", channel, count] confirms the subscription. */
static bool confirms(const redisReply *r)
{
    return r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 && r->element[0]->type == REDIS_REPLY_STRING &&
           strcmp(r->element[0]->str, "subscribe") == 0;
}

void fleet_changes_subscribe(fleet_changes *changes, double now)
{
    if (changes->context || now < changes->retry_at)
        return;
    redisContext *c = fleet_connect(&changes->endpoint, changes->timeout, NULL, 0);
    redisReply *reply = c ? redisCommand(c, "SUBSCRIBE %s", changes->channel) : NULL;
    if (confirms(reply)) {
        changes->context = c;
        changes->retry_delay = 0;
    } else {
        if (c)
            redisFree(c);
        double delay = 2.0 * changes->retry_delay;
        changes->retry_delay = delay < changes->timeout ? changes->timeout
                               : delay > RETRY_MAX_SECONDS ? RETRY_MAX_SECONDS
                                                           : delay;
        changes->retry_at = now + changes->retry_delay;
    }
    if (reply)
        freeReplyObject(reply);
}

int fleet_changes_fd(const fleet_changes *changes)
{
    return changes->context ? changes->context->fd : -1;
}

/* ["message", channel, host] */
static bool from_another_host(const redisReply *r, const char *own_host)
{
    return r->type == REDIS_REPLY_ARRAY && r->elements == 3 && r->element[0]->type == REDIS_REPLY_STRING &&
           strcmp(r->element[0]->str, "message") == 0 && r->element[2]->type == REDIS_REPLY_STRING &&
           strcmp(r->element[2]->str, own_host) != 0;
}

int fleet_changes_read(fleet_changes *changes, const char *own_host)
{
    redisContext *c = changes->context;
    if (!c)
        return -1;
    /* The socket is readable: this read does not wait (EOF or an error
     * loses the subscription); then every whole reply it completed. */
    if (redisBufferRead(c) != REDIS_OK)
        return lost(changes);
    int notices = 0;
    void *reply = NULL;
    while (redisReaderGetReply(c->reader, &reply) == REDIS_OK && reply) {
        notices += from_another_host(reply, own_host);
        freeReplyObject(reply);
        reply = NULL;
    }
    if (c->reader->err)
        return lost(changes);
    return notices;
}

/* Reading a fleet's state without joining it (docs/spec.md F12): what an
 * operator's `respite gates` shows. One read-only script, on Redis's clock. */
#include "fleet_internal.h"

#include <hiredis.h>
#include <stdio.h>
#include <string.h>

/* KEYS as fleet_script's. Reply: {paused, pause_left_ms, pause_ms, epoch,
 * holder, lease_left_ms, host, opened_ago_ms, host, ...}. */
static const char read_script[] =
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    "local s = redis.call('HMGET', KEYS[1], 'paused', 'pause', 'epoch')\n"
    "local left, lease = redis.call('PTTL', KEYS[3]), redis.call('PTTL', KEYS[4])\n"
    "local out = {s[1] == '1' and 1 or 0, math.max(left, 0), math.floor(tonumber(s[2] or 0)),\n"
    "  tonumber(s[3] or 0), redis.call('GET', KEYS[4]) or '', math.max(lease, 0)}\n"
    "local rows = redis.call('HGETALL', KEYS[2])\n"
    "for i = 1, #rows, 2 do\n"
    "  out[#out + 1] = rows[i]\n"
    "  out[#out + 1] = now - tonumber(rows[i + 1])\n"
    "end\n"
    "return out\n";

static int64_t integer_at(const redisReply *r, size_t i)
{
    return r->element[i]->type == REDIS_REPLY_INTEGER ? (int64_t)r->element[i]->integer : 0;
}

static const char *text_at(const redisReply *r, size_t i)
{
    return r->element[i]->type == REDIS_REPLY_STRING ? r->element[i]->str : "";
}

/* Newest first: insertion by opened_ago. */
static void add_host(respite_fleet_info *out, const char *id, double ago)
{
    int n = out->hosts < RESPITE_FLEET_HOSTS_MAX ? out->hosts : RESPITE_FLEET_HOSTS_MAX;
    int at = n;
    while (at > 0 && out->host[at - 1].opened_ago > ago)
        at--;
    if (at >= RESPITE_FLEET_HOSTS_MAX) {
        out->hosts++;
        return;
    }
    int moved = (n < RESPITE_FLEET_HOSTS_MAX ? n : RESPITE_FLEET_HOSTS_MAX - 1) - at;
    memmove(&out->host[at + 1], &out->host[at], (size_t)moved * sizeof out->host[0]);
    respite_copy_text(out->host[at].id, sizeof out->host[at].id, id);
    out->host[at].opened_ago = ago;
    out->hosts++;
}

int respite_fleet_read(const respite_settings *fleet_settings, const char *name, respite_fleet_info *out,
                       respite_error *err)
{
    if (!name || !name[0])
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "name must be a fleet gate's name (got %s)",
                            name ? "\"\"" : "NULL");
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_fleet_info (got NULL)");
    if (respite_settings_expect(fleet_settings, "fleet", "fleet_settings", err) != RESPITE_OK)
        return RESPITE_E_INVALID_SETTING;
    fleet_endpoint endpoint;
    int rc = fleet_url_parse(respite_setting_text(fleet_settings, RESPITE_SETTING_FLEET_URL), &endpoint, err);
    if (rc != RESPITE_OK)
        return rc;
    fleet_store *store =
        fleet_store_new(&endpoint, name, respite_setting_number(fleet_settings, RESPITE_SETTING_FLEET_REFRESH_SECONDS));
    if (!store)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory reading a fleet");
    char why[128] = "";
    redisContext *c = fleet_store_connection(store, why, sizeof why);
    redisReply *r = NULL;
    if (c) {
        r = redisCommand(c, "EVAL %s 4 %s %s %s %s", read_script, fleet_store_key(store, FLEET_KEY_STATE),
                         fleet_store_key(store, FLEET_KEY_HOSTS), fleet_store_key(store, FLEET_KEY_PAUSE),
                         fleet_store_key(store, FLEET_KEY_PROBE));
        if (!r)
            respite_copy_text(why, sizeof why, c->errstr[0] ? c->errstr : "no answer");
        else if (r->type == REDIS_REPLY_ERROR)
            respite_copy_text(why, sizeof why, r->str);
    }
    rc = RESPITE_OK;
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements < 6 || r->elements % 2) {
        rc = respite_fail(err, RESPITE_E_TRANSPORT, "cannot read the fleet of gate \"%s\" at %s:%d: %s", name,
                          endpoint.host, endpoint.port, why[0] ? why : "unexpected answer");
    } else {
        memset(out, 0, sizeof *out);
        out->paused = integer_at(r, 0) != 0;
        out->pause_left = (double)integer_at(r, 1) / 1000.0;
        out->pause = (double)integer_at(r, 2) / 1000.0;
        out->epoch = integer_at(r, 3);
        respite_copy_text(out->probe_host, sizeof out->probe_host, text_at(r, 4));
        out->lease_left = (double)integer_at(r, 5) / 1000.0;
        for (size_t i = 6; i + 1 < r->elements; i += 2)
            add_host(out, text_at(r, i), (double)integer_at(r, i + 1) / 1000.0);
    }
    if (r)
        freeReplyObject(r);
    fleet_store_free(store);
    return rc;
}

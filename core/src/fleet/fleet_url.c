/* fleet_url: redis://[:password@]host:port[/db] (docs/spec.md F2). */
#include "fleet_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_url(const char *url, respite_error *err)
{
    return respite_fail_setting(err, "fleet_url",
                                "fleet_url must be redis://host:port or redis://host:port/db, with an optional "
                                ":password@ (got '%s')",
                                url);
}

/* A decimal number from min to max filling [text, end). */
static bool read_number(const char *text, const char *end, long min, long max, int *out)
{
    if (text == end || end - text > 10)
        return false;
    long value = 0;
    for (const char *c = text; c < end; c++) {
        if (*c < '0' || *c > '9')
            return false;
        value = value * 10 + (*c - '0');
    }
    if (value < min || value > max)
        return false;
    *out = (int)value;
    return true;
}

int fleet_url_parse(const char *url, fleet_endpoint *out, respite_error *err)
{
    memset(out, 0, sizeof *out);
    size_t scheme = respite_starts_with_nocase(url, "redis://");
    if (!scheme)
        return fail_url(url, err);
    const char *p = url + scheme;
    for (const unsigned char *c = (const unsigned char *)p; *c; c++)
        if (*c <= 0x20 || *c == 0x7f)
            return fail_url(url, err);
    const char *at = strrchr(p, '@');
    if (at) {
        if (p[0] != ':' || (size_t)(at - p - 1) >= sizeof out->password)
            return fail_url(url, err);
        memcpy(out->password, p + 1, (size_t)(at - p - 1));
        p = at + 1;
    }
    const char *slash = strchr(p, '/');
    const char *end = slash ? slash : p + strlen(p);
    const char *colon = memchr(p, ':', (size_t)(end - p));
    if (!colon || colon == p || (size_t)(colon - p) >= sizeof out->host ||
        !read_number(colon + 1, end, 1, 65535, &out->port))
        return fail_url(url, err);
    memcpy(out->host, p, (size_t)(colon - p));
    if (slash && !read_number(slash + 1, slash + 1 + strlen(slash + 1), 0, 1000000, &out->db))
        return fail_url(url, err);
    return RESPITE_OK;
}

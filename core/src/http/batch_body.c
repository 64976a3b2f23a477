/* What a batch puts on its request: the body (prefix, events joined by
 * separator, suffix) and the header of its event ids (S16). */
#include "http_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int respite_buffer_reserve(respite_buffer *b, size_t extra)
{
    if (b->size + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->size + extra + 1)
        cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown)
        return -1;
    b->data = grown;
    b->cap = cap;
    return 0;
}

int respite_buffer_append(respite_buffer *b, const char *data, size_t size)
{
    if (respite_buffer_reserve(b, size) != 0)
        return -1;
    if (size)
        memcpy(b->data + b->size, data, size);
    b->size += size;
    b->data[b->size] = '\0';
    return 0;
}

void respite_buffer_free(respite_buffer *b)
{
    free(b->data);
    b->data = NULL;
    b->size = b->cap = 0;
}

int respite_batch_body(const respite_batch *batch, const char *prefix, const char *separator, const char *suffix,
                       respite_buffer *out, respite_error *err)
{
    out->size = 0;
    int count = respite_batch_count(batch);
    size_t prefix_len = strlen(prefix), separator_len = strlen(separator), suffix_len = strlen(suffix);
    size_t total = prefix_len + suffix_len + (count > 1 ? (size_t)(count - 1) * separator_len : 0) +
                   (size_t)respite_batch_payload_bytes(batch);
    if (respite_buffer_reserve(out, total) != 0)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory building a body of %zu bytes", total);
    /* Room is reserved: plain copies from here on. */
    char *p = out->data;
    memcpy(p, prefix, prefix_len);
    p += prefix_len;
    for (int i = 0; i < count; i++) {
        if (i > 0) {
            memcpy(p, separator, separator_len);
            p += separator_len;
        }
        size_t size;
        const char *text = respite_batch_payload(batch, i, &size);
        memcpy(p, text, size);
        p += size;
    }
    memcpy(p, suffix, suffix_len);
    p += suffix_len;
    *p = '\0';
    out->size = (size_t)(p - out->data);
    return RESPITE_OK;
}

int respite_batch_ids_header(const respite_batch *batch, const char *name, respite_buffer *out, respite_error *err)
{
    out->size = 0;
    int count = respite_batch_count(batch);
    /* 20 digits and a comma per id. */
    if (respite_buffer_reserve(out, strlen(name) + 2 + (size_t)count * 21) != 0)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory listing %d event ids", count);
    char *p = out->data;
    p += sprintf(p, "%s:", name);
    for (int i = 0; i < count; i++)
        p += sprintf(p, "%s%lld", i ? "," : " ", (long long)respite_batch_event_id(batch, i, NULL));
    out->size = (size_t)(p - out->data);
    return RESPITE_OK;
}

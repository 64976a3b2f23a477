/* gzip bodies (Content-Encoding: gzip) with zlib. */
#include "http_internal.h"

#include <zlib.h>

int respite_gzip(const char *in, size_t size, respite_buffer *out, respite_error *err)
{
    out->size = 0;
    z_stream z = {0};
    /* windowBits 15 + 16: a gzip wrapper instead of zlib's. */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory starting gzip");
    size_t bound = deflateBound(&z, (uLong)size) + 32;
    if (respite_buffer_reserve(out, bound) != 0) {
        deflateEnd(&z);
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory for a gzip body of %zu bytes", bound);
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)size;
    z.next_out = (Bytef *)out->data;
    z.avail_out = (uInt)bound;
    int rc = deflate(&z, Z_FINISH);
    out->size = bound - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        return respite_fail(err, RESPITE_E_INTERNAL, "gzip failed (zlib status %d)", rc);
    return RESPITE_OK;
}

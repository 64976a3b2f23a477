/* Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date. */
#include "http_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

double respite_http_parse_retry_after(const char *value, time_t wall_now)
{
    if (!value)
        return 0.0;
    while (*value == ' ' || *value == '\t')
        value++;
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t' || value[n - 1] == '\r' || value[n - 1] == '\n'))
        n--;
    if (n == 0 || n > 64)
        return 0.0;
    char text[65];
    memcpy(text, value, n);
    text[n] = '\0';

    if (isdigit((unsigned char)text[0])) {
        /* delay-seconds; a fraction is not in the RFC but harmless to accept. */
        char *end = NULL;
        double seconds = strtod(text, &end);
        if (end == text || *end != '\0' || !(seconds >= 0.0) || seconds > 1e9)
            return 0.0;
        return seconds;
    }
    time_t when = curl_getdate(text, NULL);
    if (when == (time_t)-1 || when <= wall_now)
        return 0.0;
    return (double)(when - wall_now);
}

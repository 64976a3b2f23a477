/* Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date (C6).
 * The header parser has already dropped the value's surrounding white
 * space, so anything else around it makes the value malformed. */
#include "http_internal.h"

#include <stdlib.h>

static int is_ascii_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

double respite_http_parse_retry_after(const char *value, time_t wall_now)
{
    if (!value)
        return 0.0;
    double seconds;
    if (value[0] >= '0' && value[0] <= '9') {
        /* delay-seconds: decimal digits (a fraction accepted), never hex
         * or an exponent, which strtod would read. */
        if (!respite_parse_decimal(value, &seconds))
            return 0.0;
    } else if (is_ascii_letter(value[0])) {
        /* Every HTTP-date form starts with the day's name. */
        time_t when = curl_getdate(value, NULL);
        if (when == (time_t)-1)
            return 0.0;
        seconds = difftime(when, wall_now);
    } else {
        return 0.0;
    }
    if (!(seconds > 0.0))
        return 0.0;
    /* C6: a hint beyond the longest pause or delay is capped, never ignored. */
    return seconds < RESPITE_RETRY_AFTER_MAX_SECONDS ? seconds : RESPITE_RETRY_AFTER_MAX_SECONDS;
}

int respite_http_status_has_hint(int http_status)
{
    return http_status == 429 || http_status == 503;
}

double respite_retry_after_seconds(int http_status, const char *header_value)
{
    if (!respite_http_status_has_hint(http_status) || !header_value)
        return 0.0;
    while (*header_value == ' ' || *header_value == '\t')
        header_value++;
    size_t length = strlen(header_value);
    while (length > 0 && (header_value[length - 1] == ' ' || header_value[length - 1] == '\t'))
        length--;
    char *trimmed = malloc(length + 1);
    if (!trimmed)
        return 0.0;
    memcpy(trimmed, header_value, length);
    trimmed[length] = '\0';
    double seconds = respite_http_parse_retry_after(trimmed, time(NULL));
    free(trimmed);
    return seconds;
}

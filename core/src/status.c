/* The status table (one X-macro) and the error struct helpers. */
#define _POSIX_C_SOURCE 200809L /* locale_t (c_locale.h) under strict C11 too */
#include "c_locale.h"
#include "internal.h"
#include "utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
#define RESPITE_STATUS_NAME_(suffix, value, name, text) [value] = name,
    RESPITE_STATUS_MAP(RESPITE_STATUS_NAME_)
#undef RESPITE_STATUS_NAME_
};

static const char *const status_texts[] = {
#define RESPITE_STATUS_TEXT_(suffix, value, name, text) [value] = text,
    RESPITE_STATUS_MAP(RESPITE_STATUS_TEXT_)
#undef RESPITE_STATUS_TEXT_
};

const char *respite_status_name(int status)
{
    if (status < 0 || status >= RESPITE_STATUS_COUNT_)
        return "unknown";
    return status_names[status];
}

const char *respite_strerror(int status)
{
    if (status < 0 || status >= RESPITE_STATUS_COUNT_)
        return "unknown status";
    return status_texts[status];
}

int respite_status_count(void)
{
    return RESPITE_STATUS_COUNT_;
}

static const char *const handle_nouns[] = {
#define RESPITE_HANDLE_NOUN_(suffix, noun) [RESPITE_HANDLE_##suffix] = noun,
    RESPITE_HANDLE_MAP(RESPITE_HANDLE_NOUN_)
#undef RESPITE_HANDLE_NOUN_
};

int respite_closed(respite_handle_kind kind, respite_error *err)
{
    if ((int)kind < 0 || (int)kind >= RESPITE_HANDLE_COUNT_)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "kind must be a handle kind 0 to %d (got %d)",
                            RESPITE_HANDLE_COUNT_ - 1, (int)kind);
    return respite_fail(err, RESPITE_E_CLOSED, "%s is closed", handle_nouns[kind]);
}

void respite_error_clear(respite_error *err)
{
    if (!err)
        return;
    err->status = RESPITE_OK;
    err->setting[0] = '\0';
    err->message[0] = '\0';
    err->retry_after = 0.0;
}

void respite_copy_text(char *dst, size_t size, const char *src)
{
    if (size == 0)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= size)
        n = respite_utf8_complete(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int vfail(respite_error *err, int status, const char *setting, const char *fmt, va_list ap)
{
    if (!err)
        return status;
    err->status = status;
    /* A name the caller gave (E5) may be any bytes: shown as E3 shows text. */
    respite_utf8_printable(err->setting, sizeof err->setting, setting ? setting : "", setting ? strlen(setting) : 0,
                           -1, "", '?');
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    if (n >= (int)sizeof err->message)
        err->message[respite_utf8_complete(err->message, sizeof err->message - 1)] = '\0';
    err->retry_after = 0.0;
    return status;
}

int respite_fail(respite_error *err, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, status, NULL, fmt, ap);
    va_end(ap);
    return status;
}

int respite_fail_setting(respite_error *err, const char *setting, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, RESPITE_E_INVALID_SETTING, setting, fmt, ap);
    va_end(ap);
    return RESPITE_E_INVALID_SETTING;
}

/* Shortest round-trip digits, laid out as ECMAScript's Number::toString
 * does (fixed notation from 1e-6 up to 1e21), so that every language can
 * reproduce a message and "90000" never reads as "9e+04". */
char *respite_format_number(double value, char *buf, size_t size)
{
    if (isnan(value)) {
        respite_copy_text(buf, size, "nan");
        return buf;
    }
    if (isinf(value)) {
        respite_copy_text(buf, size, value > 0 ? "inf" : "-inf");
        return buf;
    }
    if (value == 0.0) {
        respite_copy_text(buf, size, "0");
        return buf;
    }
    char sci[40];
    locale_t previous = respite_c_locale_begin();
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(sci, sizeof sci, "%.*e", precision - 1, value);
        if (strtod(sci, NULL) == value)
            break;
    }
    respite_c_locale_end(previous);
    char digits[24];
    int k = 0;
    const char *p = sci + (sci[0] == '-');
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    int n = atoi(p + 1) + 1; /* value = 0.digits x 10^n */
    char out[64];
    int len = 0;
    if (value < 0)
        out[len++] = '-';
    if (k <= n && n <= 21) {
        len += snprintf(out + len, sizeof out - (size_t)len, "%.*s%.*s", k, digits, n - k, "000000000000000000000");
    } else if (0 < n && n <= 21) {
        len += snprintf(out + len, sizeof out - (size_t)len, "%.*s.%.*s", n, digits, k - n, digits + n);
    } else if (-6 < n && n <= 0) {
        len += snprintf(out + len, sizeof out - (size_t)len, "0.%.*s%.*s", -n, "000000", k, digits);
    } else {
        len += snprintf(out + len, sizeof out - (size_t)len, "%c%s%.*se%c%d", digits[0], k > 1 ? "." : "", k - 1,
                        digits + 1, n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    respite_copy_text(buf, size, out);
    return buf;
}

int respite_check_time(double t, const char *what, respite_error *err)
{
    if (isfinite(t) && t >= 0.0)
        return RESPITE_OK;
    char text[40];
    return respite_fail(err, RESPITE_E_INVALID_TIME,
                        "%s must be a finite number of seconds, 0 or more (got %s)", what,
                        respite_format_number(t, text, sizeof text));
}

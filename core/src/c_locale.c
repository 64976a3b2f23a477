/* The "C" numeric locale, made once and shared (c_locale.h). */
#define _GNU_SOURCE /* newlocale, uselocale */
#include "c_locale.h"

#include <pthread.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

locale_t respite_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale;
}

/* uselocale only changes this thread's locale: other threads are not
 * disturbed, and the caller's own setting comes back at the end. */
locale_t respite_c_locale_begin(void)
{
    locale_t c = respite_c_locale();
    return c ? uselocale(c) : (locale_t)0;
}

void respite_c_locale_end(locale_t previous)
{
    if (previous)
        uselocale(previous);
}

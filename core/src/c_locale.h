/* The "C" locale for numbers: every number the core reads or writes uses
 * '.' as the decimal point whatever the process's locale (a JVM calls
 * setlocale(LC_ALL, ""), so does many an application). */
#ifndef RESPITE_C_LOCALE_H
#define RESPITE_C_LOCALE_H

#include <locale.h>

/* The shared "C" numeric locale, made once; (locale_t)0 if it could not be. */
locale_t respite_c_locale(void);

/* Makes the calling thread use the "C" locale until respite_c_locale_end
 * with what this returned: for snprintf/strtod of doubles. */
locale_t respite_c_locale_begin(void);
void respite_c_locale_end(locale_t previous);

#endif

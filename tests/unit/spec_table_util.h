/* Reading markdown table rows of docs/spec.md, for the tests that compare a
 * spec table with the core's (test_spec_*.c). */
#ifndef SPEC_TABLE_UTIL_H
#define SPEC_TABLE_UTIL_H

#include <string.h>

#define SPEC_PATH RESPITE_SOURCE_DIR "/docs/spec.md"
#define CELL_MAX 512

static inline void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    size_t lead = strspn(s, " ");
    memmove(s, s + lead, strlen(s + lead) + 1);
}

/* "`x`" -> "x"; anything else unchanged. */
static inline void unquote_code(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '`' && s[n - 1] == '`') {
        memmove(s, s + 1, n - 2);
        s[n - 2] = '\0';
    }
}

/* Splits "| a | b | c |" into trimmed cells; returns how many. */
static inline int split_cells(const char *line, char cells[][CELL_MAX], int max)
{
    int n = 0;
    const char *p = strchr(line, '|');
    while (p && n < max) {
        const char *next = strchr(p + 1, '|');
        if (!next)
            break;
        size_t len = (size_t)(next - p - 1);
        if (len >= CELL_MAX)
            len = CELL_MAX - 1;
        memcpy(cells[n], p + 1, len);
        cells[n][len] = '\0';
        trim(cells[n]);
        n++;
        p = next;
    }
    return n;
}

#endif

/* UTF-8 validity and printable copies, shared by the policy parser, the
 * settings, the messages and the HTTP module: the core never cuts text
 * inside a character (E3). */
#ifndef RESPITE_UTF8_H
#define RESPITE_UTF8_H

#include "internal.h"

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n bytes left, n > 0), or 0. */
size_t respite_utf8_sequence(const unsigned char *s, size_t n);

/* Characters in s (n bytes), or -1 when it is not valid UTF-8. */
long respite_utf8_length(const char *s, size_t n);

/* n, less a sequence left incomplete at the end of s's first n bytes (what
 * a cut by bytes leaves): where text cut to n bytes may end. */
#define respite_utf8_complete respite_internal_utf8_complete
RESPITE_INTERNAL_API size_t respite_internal_utf8_complete(const char *s, size_t n);

/* Copies s (n bytes) into out (size bytes, always terminated) for a
 * message: at most max_chars characters (-1: as many as fit), then `cut`
 * ("..." or "") when there were more; bytes that are not UTF-8 written as
 * '?', control characters (U+0000-U+001F, U+007F) as `control` (0: kept),
 * so the copy is valid UTF-8 and never ends inside a character. */
#define respite_utf8_printable respite_internal_utf8_printable
RESPITE_INTERNAL_API void respite_internal_utf8_printable(char *out, size_t size, const char *s, size_t n,
                                                          int max_chars, const char *cut, char control);

/* E3: text as messages quote it: in single quotes, its first 80
 * characters, control characters and bytes that are not UTF-8 as '?'.
 * Written into out (RESPITE_QUOTED_MAX bytes); returns out. */
#define RESPITE_QUOTED_CHARS 80
#define RESPITE_QUOTED_MAX (2 + RESPITE_QUOTED_CHARS * 4 + 1)
#define respite_quoted respite_internal_quoted
RESPITE_INTERNAL_API const char *respite_internal_quoted(char out[RESPITE_QUOTED_MAX], const char *value);

#endif

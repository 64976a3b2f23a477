/* UTF-8 validity and printable copies, shared by the policy parser and the
 * settings. */
#ifndef RESPITE_UTF8_H
#define RESPITE_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n bytes left, n > 0), or 0. */
size_t respite_utf8_sequence(const unsigned char *s, size_t n);

/* Characters in s (n bytes), or -1 when it is not valid UTF-8. */
long respite_utf8_length(const char *s, size_t n);

/* Copies s (n bytes) into out (size bytes, always terminated) for a
 * message: at most max_chars characters, then `cut` ("..." or "") when
 * there were more; control characters and bytes that are not UTF-8 written
 * as '?', so the copy is valid UTF-8. */
void respite_utf8_printable(char *out, size_t size, const char *s, size_t n, int max_chars, const char *cut);

#endif

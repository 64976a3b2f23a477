/* UTF-8 validity: shortest forms only, no surrogates, nothing past U+10FFFF. */
#include "utf8.h"

#include <stdint.h>
#include <string.h>

size_t respite_utf8_sequence(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        cp = s[0] & 0x1F;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        cp = s[0] & 0x0F;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

long respite_utf8_length(const char *s, size_t n)
{
    long chars = 0;
    for (size_t i = 0; i < n; chars++) {
        size_t len = respite_utf8_sequence((const unsigned char *)s + i, n - i);
        if (len == 0)
            return -1;
        i += len;
    }
    return chars;
}

size_t respite_utf8_complete(const char *s, size_t n)
{
    size_t lead = n;
    while (lead > 0 && n - lead < 3 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
        lead--;
    if (lead == 0)
        return n;
    unsigned char c = (unsigned char)s[lead - 1];
    size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    return n - (lead - 1) < need ? lead - 1 : n;
}

void respite_utf8_printable(char *out, size_t size, const char *s, size_t n, int max_chars, const char *cut,
                            char control)
{
    size_t o = 0, cut_len = strlen(cut);
    int chars = 0;
    for (size_t i = 0; i < n;) {
        if (chars == max_chars) {
            if (o + cut_len + 1 <= size) {
                memcpy(out + o, cut, cut_len);
                o += cut_len;
            }
            break;
        }
        size_t len = respite_utf8_sequence((const unsigned char *)s + i, n - i);
        if (len == 0 || (control && len == 1 && ((unsigned char)s[i] < 0x20 || s[i] == 0x7F))) {
            if (o + 2 > size)
                break;
            out[o++] = len == 0 ? '?' : control;
            i += len ? len : 1;
        } else {
            if (o + len + 1 > size)
                break;
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
        }
        chars++;
    }
    out[o] = '\0';
}

const char *respite_quoted(char out[RESPITE_QUOTED_MAX], const char *value)
{
    out[0] = '\'';
    respite_utf8_printable(out + 1, RESPITE_QUOTED_MAX - 2, value, strlen(value), RESPITE_QUOTED_CHARS, "", '?');
    strcat(out, "'");
    return out;
}

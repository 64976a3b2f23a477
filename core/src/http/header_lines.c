/* Request headers given as text: "Name: value" lines separated by "\n". */
#include "http_internal.h"
#include "../utf8.h"

#include <stdlib.h>
#include <string.h>

/* RFC 9110 token characters, which a field name is made of. */
static int is_token_char(unsigned char c)
{
    return c > 32 && c < 127 && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

int respite_http_parse_header_lines(const char *lines, struct curl_slist **list, respite_error *err)
{
    if (!lines)
        return RESPITE_OK;
    int number = 0;
    const char *p = lines;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        number++;
        size_t trimmed = len;
        if (trimmed > 0 && p[trimmed - 1] == '\r')
            trimmed--;
        if (trimmed > 0) {
            size_t name_len = 0;
            while (name_len < trimmed && is_token_char((unsigned char)p[name_len]))
                name_len++;
            if (name_len == 0 || name_len >= trimmed || p[name_len] != ':' || memchr(p, '\r', trimmed)) {
                char shown[RESPITE_QUOTED_MAX];
                respite_utf8_printable(shown, sizeof shown, p, trimmed, RESPITE_QUOTED_CHARS, "", '?');
                return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                                    "headers must be \"Name: value\" lines separated by \\n (line %d is \"%s\")",
                                    number, shown);
            }
            char *line = malloc(trimmed + 1);
            if (!line)
                return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory copying headers");
            memcpy(line, p, trimmed);
            line[trimmed] = '\0';
            struct curl_slist *grown = curl_slist_append(*list, line);
            free(line);
            if (!grown)
                return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory copying headers");
            *list = grown;
        }
        if (!end)
            break;
        p = end + 1;
    }
    return RESPITE_OK;
}

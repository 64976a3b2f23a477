/* Text from a binding (E15): a language's string carries its length and
 * may hold NUL bytes, where a C string would silently end. */
#include "internal.h"
#include "utf8.h"

#include <string.h>

int respite_text_check(const char *text, size_t length, const char *what, respite_error *err)
{
    if (!text || !memchr(text, '\0', length))
        return RESPITE_OK;
    char shown[128]; /* the NUL shows as '?', like every control character */
    respite_utf8_printable(shown, sizeof shown, text, length, 40, "...", '?');
    return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "%s must be text without NUL bytes (got '%s')",
                        what ? what : "text", shown);
}

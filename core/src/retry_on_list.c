/* Reads the retry_on list text (behaviour section 3). */
#include "retry_on_list.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A status code is three decimal digits: "429", never "429.0" or "4.29e2". */
static int status_code(const char *item)
{
    if (strlen(item) != 3 || !isdigit((unsigned char)item[0]) || !isdigit((unsigned char)item[1]) ||
        !isdigit((unsigned char)item[2]))
        return -1;
    int code = atoi(item);
    return code >= RESPITE_RETRY_ON_STATUS_FIRST && code <= RESPITE_RETRY_ON_STATUS_LAST ? code : -1;
}

/* Blanks as the C locale has them, whatever the process's locale. */
static int blank(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Reads one item (blanks around it trimmed) of n bytes at text; 0 when it
 * is empty or not an item. Items are short: longer ones are no item. */
static int read_item(const char *text, size_t n, respite_retry_on_list *parsed)
{
    while (n > 0 && blank(*text)) {
        text++;
        n--;
    }
    while (n > 0 && blank(text[n - 1]))
        n--;
    char item[16];
    if (n == 0 || n >= sizeof item)
        return 0;
    memcpy(item, text, n);
    item[n] = '\0';
    int outcome = respite_outcome_from_name(item, NULL);
    if (outcome > RESPITE_OUTCOME_SUCCESS) {
        parsed->outcome_mask |= 1u << outcome;
        return 1;
    }
    int code = status_code(item);
    if (code < 0)
        return 0;
    parsed->status_listed[code - RESPITE_RETRY_ON_STATUS_FIRST] = 1;
    return 1;
}

/* Any length; every item between commas must be one ("" and "," are not). */
int respite_retry_on_list_parse(const char *text, respite_retry_on_list *list)
{
    respite_retry_on_list parsed = {0};
    for (const char *item = text;; ) {
        const char *comma = strchr(item, ',');
        size_t n = comma ? (size_t)(comma - item) : strlen(item);
        if (!read_item(item, n, &parsed))
            return 0;
        if (!comma)
            break;
        item = comma + 1;
    }
    if (list)
        *list = parsed;
    return 1;
}

int respite_retry_on_list_has(const respite_retry_on_list *list, int outcome, int http_status)
{
    if (outcome == RESPITE_OUTCOME_SUCCESS)
        return 0;
    if (list->outcome_mask & (1u << outcome))
        return 1;
    return http_status >= RESPITE_RETRY_ON_STATUS_FIRST && http_status <= RESPITE_RETRY_ON_STATUS_LAST &&
           list->status_listed[http_status - RESPITE_RETRY_ON_STATUS_FIRST];
}

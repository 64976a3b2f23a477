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

static char *trimmed(char *item)
{
    while (isspace((unsigned char)*item))
        item++;
    char *end = item + strlen(item);
    while (end > item && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return item;
}

int respite_retry_on_list_parse(const char *text, respite_retry_on_list *list)
{
    respite_retry_on_list parsed = {0};
    char buf[512];
    if (strlen(text) >= sizeof buf || !*text)
        return 0;
    respite_copy_text(buf, sizeof buf, text);
    for (char *save = NULL, *token = strtok_r(buf, ",", &save); token; token = strtok_r(NULL, ",", &save)) {
        char *item = trimmed(token);
        int outcome = respite_outcome_from_name(item, NULL);
        if (outcome > RESPITE_OUTCOME_SUCCESS) {
            parsed.outcome_mask |= 1u << outcome;
            continue;
        }
        int code = status_code(item);
        if (code < 0)
            return 0;
        parsed.status_listed[code - RESPITE_RETRY_ON_STATUS_FIRST] = 1;
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

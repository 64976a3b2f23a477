/* The retry_on list ("transport,429,503"): one reading of its text, used
 * both to validate the setting and to build a back-off's retry sets. */
#ifndef RESPITE_RETRY_ON_LIST_H
#define RESPITE_RETRY_ON_LIST_H

#include "internal.h"

#define RESPITE_RETRY_ON_STATUS_FIRST 400
#define RESPITE_RETRY_ON_STATUS_LAST 599

typedef struct respite_retry_on_list {
    unsigned outcome_mask; /* bit per respite_outcome */
    unsigned char status_listed[RESPITE_RETRY_ON_STATUS_LAST - RESPITE_RETRY_ON_STATUS_FIRST + 1];
} respite_retry_on_list;

/* 1 when text is a valid list (items: outcome names other than success,
 * codes 400-599 as three digits; comma-separated, blanks trimmed; any
 * length), and then fills *list if not NULL; 0 when it is not (empty, an
 * empty item, a bad item). */
int respite_retry_on_list_parse(const char *text, respite_retry_on_list *list);

/* 1 when the list names the outcome or, for other outcomes, the status code. */
int respite_retry_on_list_has(const respite_retry_on_list *list, int outcome, int http_status);

#endif /* RESPITE_RETRY_ON_LIST_H */

/* The one table of every setting of every component: name, type, default,
 * accepted range and doc. docs/spec.md restates it and a test compares them. */
#include "settings_table.h"

#include <float.h>

#define SECONDS_MAX 86400.0
#define EXACT_INTEGER_MAX 9007199254740991.0 /* 2^53 - 1: exact in every language */

#define INTEGER(comp, name, def, lo, hi, accepted, doc) \
    {comp, name, RESPITE_SETTING_INTEGER, def, NULL, lo, hi, 0, 0, NULL, accepted, doc}
#define NUMBER(comp, name, def, lo, lo_excl, hi, accepted, doc) \
    {comp, name, RESPITE_SETTING_NUMBER, def, NULL, lo, hi, lo_excl, 0, NULL, accepted, doc}
#define BOOLEAN(comp, name, def, doc) \
    {comp, name, RESPITE_SETTING_BOOLEAN, def, NULL, 0, 1, 0, 0, NULL, "true or false", doc}
#define CHOICE(comp, name, def, choices, accepted, doc) \
    {comp, name, RESPITE_SETTING_CHOICE, 0, def, 0, 0, 0, 0, choices, accepted, doc}
#define STRING(comp, name, def, accepted, doc) \
    {comp, name, RESPITE_SETTING_STRING, 0, def, 0, 0, 0, 0, NULL, accepted, doc}
#define LIST(comp, name, def, accepted, doc) \
    {comp, name, RESPITE_SETTING_LIST, 0, def, 0, 0, 0, 0, NULL, accepted, doc}

const respite_setting_info respite_settings_table[] = {
    /* gate: behaviour section 2 */
    INTEGER("gate", "failures_to_enter_recovery", 10, 1, 1000, "an integer from 1 to 1000",
            "counted failures within the window that open the gate (N)"),
    NUMBER("gate", "failures_window_seconds", 100.0, 0, 1, SECONDS_MAX,
           "a number greater than 0 and at most 86400", "the sliding window that failures are counted in (W)"),
    NUMBER("gate", "recovery_seconds", 60.0, -DBL_MAX, 0, SECONDS_MAX,
           "a number at most 86400 (0 or less disables the gate)",
           "the first pause once the gate opens (R); 0 or less never refuses"),
    NUMBER("gate", "recovery_multiplier", 1.0, 1, 0, 100, "a number from 1 to 100",
           "each failed probe multiplies the pause by this (M)"),
    NUMBER("gate", "max_recovery_seconds", 300.0, 0, 1, SECONDS_MAX,
           "a number greater than 0 and at most 86400", "the longest pause (Rmax)"),
    INTEGER("gate", "probes", 1, 0, 1000, "an integer from 0 to 1000",
            "calls admitted at once when a pause ends (P); 0 admits every call"),
    NUMBER("gate", "probe_timeout_seconds", 30.0, 0, 1, SECONDS_MAX,
           "a number greater than 0 and at most 86400", "a probe with no outcome by then counts as failed"),
    BOOLEAN("gate", "recover_never", 0, "once open, refuse until reset"),
    BOOLEAN("gate", "count_all_failures", 0, "count every non-success, 4xx included"),
    BOOLEAN("gate", "honour_retry_after", 1, "a Retry-After hint on the failure that opens the gate lengthens the pause"),
    NUMBER("gate", "jitter", 0.0, 0, 0, 1, "a number from 0 to 1",
           "shortens each pause by up to this fraction, at random"),
    INTEGER("gate", "seed", 0, 0, EXACT_INTEGER_MAX, "an integer from 0 to 9007199254740991",
            "seeds the jitter generator; 0 seeds from the operating system"),

    /* backoff: behaviour section 3 */
    INTEGER("backoff", "max_attempts", 3, 1, 100, "an integer from 1 to 100",
            "attempts in total, the first included"),
    NUMBER("backoff", "initial_delay_seconds", 0.5, 0, 1, SECONDS_MAX,
           "a number greater than 0 and at most 86400", "the delay before the first retry"),
    NUMBER("backoff", "multiplier", 2.0, 1, 0, 100, "a number from 1 to 100", "each retry multiplies the delay by this"),
    NUMBER("backoff", "max_delay_seconds", 30.0, 0, 1, SECONDS_MAX,
           "a number greater than 0 and at most 86400", "the longest delay; at least initial_delay_seconds"),
    CHOICE("backoff", "jitter", "none", "none|full|equal|decorrelated", "one of none, full, equal, decorrelated",
           "how delays are randomised"),
    LIST("backoff", "retry_on", "transport,408,429,500,502,503,504",
         "a comma-separated list of outcome names (request_error, throttled, server_error, unusable, transport) "
         "and HTTP status codes from 400 to 599",
         "which failures are retried"),
    INTEGER("backoff", "seed", 0, 0, EXACT_INTEGER_MAX, "an integer from 0 to 9007199254740991",
            "seeds the jitter generator; 0 seeds from the operating system"),

    /* queue: behaviour section 4 (capacity and TTL come from the policy) */
    CHOICE("queue", "overflow", "drop_oldest", "drop_oldest|drop_newest", "one of drop_oldest, drop_newest",
           "at capacity, evict the oldest queued event or refuse the new one"),
    INTEGER("queue", "max_bytes", 0, 0, EXACT_INTEGER_MAX, "an integer from 0 to 9007199254740991",
            "the most payload bytes queued at once; 0 for no byte limit"),

    /* sender: behaviour section 5 */
    STRING("sender", "url", "", "an http:// or https:// URL", "where batches are sent"),
    NUMBER("sender", "timeout_seconds", 5.0, 0, 1, SECONDS_MAX, "a number greater than 0 and at most 86400",
           "the most one send may take"),
    STRING("sender", "content_type", "application/json", "any text", "Content-Type of a batch"),
    STRING("sender", "prefix", "", "any text", "written before the first event of a batch"),
    STRING("sender", "separator", "\n", "any text", "written between events of a batch"),
    STRING("sender", "suffix", "", "any text", "written after the last event of a batch"),
    BOOLEAN("sender", "gzip", 0, "gzip the body and send Content-Encoding: gzip"),
    INTEGER("sender", "min_entries_per_message", 50, 1, 1000000, "an integer from 1 to 1000000",
            "events queued before a batch is sent"),
    INTEGER("sender", "max_entries_per_message", 0, 0, 1000000, "an integer from 0 to 1000000",
            "the most events in one batch; 0 for twice the minimum, or the policy's prefetch_count"),
    NUMBER("sender", "close_timeout_seconds", 5.0, 0, 0, SECONDS_MAX, "a number from 0 to 86400",
           "how long close may spend draining the queue"),

    /* client: behaviour section 6 */
    NUMBER("client", "timeout_seconds", 2.0, 0, 1, SECONDS_MAX, "a number greater than 0 and at most 86400",
           "the most one request may take"),
    STRING("client", "user_agent", "respite", "any text", "User-Agent of every request"),
};

const int respite_settings_table_size = (int)(sizeof respite_settings_table / sizeof respite_settings_table[0]);

const respite_profile respite_profiles[] = {
    {"cloud_request", "gate", ""},
    {"usage_sharing", "gate",
     "failures_to_enter_recovery=10,failures_window_seconds=100,recovery_seconds=2,"
     "recovery_multiplier=2,max_recovery_seconds=300,probes=1"},
};

const int respite_profiles_size = (int)(sizeof respite_profiles / sizeof respite_profiles[0]);

const char *const respite_components[] = {"gate", "backoff", "queue", "sender", "client"};
const int respite_components_size = (int)(sizeof respite_components / sizeof respite_components[0]);

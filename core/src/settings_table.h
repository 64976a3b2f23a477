/* The one list of every setting of every component. From it come the ids
 * the core reads its settings by (respite_setting_number(s, RESPITE_SETTING_
 * GATE_PROBES), ...), the public table (respite_setting_at), the accepted
 * texts errors quote and the words of choice settings; settings_table.c
 * checks its assumptions at compile time. docs/spec.md section 8 restates
 * it and tests/unit/test_spec_settings.c compares them.
 *
 * A row is X(COMPONENT, component, ID, name, KIND, ...) with, per KIND:
 *   INTEGER        default, min, max, doc            "an integer from min to max"
 *   NUMBER         default, min, max, doc            "a number from min to max"
 *   NUMBER_ABOVE   default, min, max, doc            "a number greater than min and at most max"
 *   NUMBER_AT_MOST default, max, note, doc           "a number at most max" note
 *   BOOLEAN        default (0 or 1), doc             "true or false"
 *   CHOICE         default word, WORDS, doc          "one of w1, w2, ..."; WORDS(FIRST, NEXT)
 *                  lists them as FIRST(ENUM, word) NEXT(ENUM, word)..., in the order of
 *                  the value respite_setting_choice gives (the public enum's)
 *   STRING         default, accepted, doc            any text
 *   HEADER         default, doc                      text without line breaks (it goes into a header)
 *   HEADER_NAME    default, doc                      "" or an HTTP token (a header's name)
 *   URL            default, doc                      "an http:// or https:// URL"
 *   LIST           default, accepted, doc            retry_on's list
 *   NAME           most bytes (RESPITE_NAME_MAX - 1)  the handle's name in its log lines
 * Bounds are written as plain numbers: they are quoted into the accepted
 * text as written. */
#ifndef RESPITE_SETTINGS_TABLE_H
#define RESPITE_SETTINGS_TABLE_H

#include "respite.h"

#define RESPITE_JITTER_WORDS(FIRST, NEXT) \
    FIRST(NONE, none) NEXT(FULL, full) NEXT(EQUAL, equal) NEXT(DECORRELATED, decorrelated)
#define RESPITE_OVERFLOW_WORDS(FIRST, NEXT) FIRST(DROP_OLDEST, drop_oldest) NEXT(DROP_NEWEST, drop_newest)
#define RESPITE_DURABILITY_WORDS(FIRST, NEXT) FIRST(NORMAL, normal) NEXT(FULL, full)

/* gate: behaviour section 2 */
#define RESPITE_SETTINGS_GATE(X, C, c)                                                                               \
    X(C, c, FAILURES_TO_ENTER_RECOVERY, failures_to_enter_recovery, INTEGER, 10, 1, 1000,                           \
      "counted failures within the window that open the gate (N)")                                                   \
    X(C, c, FAILURES_WINDOW_SECONDS, failures_window_seconds, NUMBER_ABOVE, 100, 0, 86400,                           \
      "the sliding window that failures are counted in (W)")                                                          \
    X(C, c, RECOVERY_SECONDS, recovery_seconds, NUMBER_AT_MOST, 60, 86400, " (0 or less disables the gate)",          \
      "the first pause once the gate opens (R); 0 or less never refuses")                                            \
    X(C, c, RECOVERY_MULTIPLIER, recovery_multiplier, NUMBER, 1, 1, 100,                                             \
      "each failed probe multiplies the pause by this (M)")                                                          \
    X(C, c, MAX_RECOVERY_SECONDS, max_recovery_seconds, NUMBER_ABOVE, 300, 0, 86400, "the longest pause (Rmax)")   \
    X(C, c, PROBES, probes, INTEGER, 1, 0, 1000,                                                                     \
      "calls admitted at once when a pause ends (P); 0 admits every call")                                           \
    X(C, c, PROBE_TIMEOUT_SECONDS, probe_timeout_seconds, NUMBER_ABOVE, 30, 0, 86400,                                \
      "a probe with no outcome by then counts as failed")                                                            \
    X(C, c, RECOVER_NEVER, recover_never, BOOLEAN, 0, "once open, refuse until reset")                               \
    X(C, c, COUNT_ALL_FAILURES, count_all_failures, BOOLEAN, 0, "count every non-success, 4xx included")             \
    X(C, c, HONOUR_RETRY_AFTER, honour_retry_after, BOOLEAN, 1,                                                      \
      "a Retry-After hint on the failure that opens the gate lengthens the pause")                                   \
    X(C, c, JITTER, jitter, NUMBER, 0, 0, 1, "shortens each pause by up to this fraction, at random")               \
    X(C, c, SEED, seed, INTEGER, 0, 0, 9007199254740991,                                                             \
      "seeds the jitter generator; 0 seeds from the operating system")                                              \
    X(C, c, SHARED_PATH, shared_path, STRING, "", "a file path, or empty for a gate in this process only",          \
      "the file the gate's state lives in, shared by every process that opens it (section 9)")                      \
    X(C, c, NAME, name, NAME, 63)

/* backoff: behaviour section 3 */
#define RESPITE_SETTINGS_BACKOFF(X, C, c)                                                                            \
    X(C, c, MAX_ATTEMPTS, max_attempts, INTEGER, 3, 1, 100, "attempts in total, the first included")                \
    X(C, c, INITIAL_DELAY_SECONDS, initial_delay_seconds, NUMBER_ABOVE, 0.5, 0, 86400,                               \
      "the delay before the first retry")                                                                            \
    X(C, c, MULTIPLIER, multiplier, NUMBER, 2, 1, 100, "each retry multiplies the delay by this")                    \
    X(C, c, MAX_DELAY_SECONDS, max_delay_seconds, NUMBER_ABOVE, 30, 0, 86400,                                        \
      "the longest delay; at least initial_delay_seconds")                                                          \
    X(C, c, JITTER, jitter, CHOICE, none, RESPITE_JITTER_WORDS, "how delays are randomised")                         \
    X(C, c, RETRY_ON, retry_on, LIST, "transport,408,429,500,502,503,504",                                           \
      "a comma-separated list of outcome names (request_error, throttled, server_error, unusable, transport) "      \
      "and HTTP status codes from 400 to 599",                                                                       \
      "which failures are retried")                                                                                  \
    X(C, c, SEED, seed, INTEGER, 0, 0, 9007199254740991,                                                             \
      "seeds the jitter generator; 0 seeds from the operating system")                                              \
    X(C, c, MAX_ELAPSED_SECONDS, max_elapsed_seconds, NUMBER, 0, 0, 86400,                                           \
      "no retry whose attempt would start later than this after the first; 0 for no limit")                         \
    X(C, c, NAME, name, NAME, 63)

/* queue: behaviour section 4 (capacity and TTL come from the policy) */
#define RESPITE_SETTINGS_QUEUE(X, C, c)                                                                              \
    X(C, c, OVERFLOW, overflow, CHOICE, drop_oldest, RESPITE_OVERFLOW_WORDS,                                         \
      "at capacity, evict the oldest queued event or refuse the new one")                                           \
    X(C, c, MAX_BYTES, max_bytes, INTEGER, 0, 0, 9007199254740991,                                                   \
      "the most payload bytes queued at once; 0 for no byte limit")                                                  \
    X(C, c, QUEUE_PATH, queue_path, STRING, "", "a file path, or \"\" for a queue in memory",                       \
      "the SQLite file that keeps the queue's events (section 10); \"\" keeps them in memory")                      \
    X(C, c, DURABILITY, durability, CHOICE, normal, RESPITE_DURABILITY_WORDS,                                          \
      "with queue_path: normal survives a process crash, full survives power loss too")                              \
    X(C, c, LEASE_SECONDS, lease_seconds, NUMBER_ABOVE, 60, 0, 86400,                                                \
      "with queue_path: how long a taken batch stays claimed before its events are pending again")                 \
    X(C, c, NAME, name, NAME, 63)

/* sender: behaviour section 5 */
#define RESPITE_SETTINGS_SENDER(X, C, c)                                                                             \
    X(C, c, URL, url, URL, "", "where batches are sent")                                                             \
    X(C, c, TIMEOUT_SECONDS, timeout_seconds, NUMBER_ABOVE, 5, 0, 86400, "the most one send may take")               \
    X(C, c, CONTENT_TYPE, content_type, HEADER, "application/json", "Content-Type of a batch")                     \
    X(C, c, PREFIX, prefix, STRING, "", "any text", "written before the first event of a batch")                     \
    X(C, c, SEPARATOR, separator, STRING, "\n", "any text", "written between events of a batch")                     \
    X(C, c, SUFFIX, suffix, STRING, "", "any text", "written after the last event of a batch")                       \
    X(C, c, GZIP, gzip, BOOLEAN, 0, "gzip the body and send Content-Encoding: gzip")                                 \
    X(C, c, MIN_ENTRIES_PER_MESSAGE, min_entries_per_message, INTEGER, 50, 1, 1000000,                               \
      "events queued before a batch is sent")                                                                        \
    X(C, c, MAX_ENTRIES_PER_MESSAGE, max_entries_per_message, INTEGER, 0, 0, 1000000,                                \
      "the most events in one batch; 0 for twice the minimum, or the policy's prefetch_count")                      \
    X(C, c, CLOSE_TIMEOUT_SECONDS, close_timeout_seconds, NUMBER, 5, 0, 86400,                                       \
      "how long close may spend draining the queue")                                                                 \
    X(C, c, IDS_HEADER, ids_header, HEADER_NAME, "",                                                                 \
      "a header carrying the batch's event ids, comma-separated in batch order; \"\" for none")                     \
    X(C, c, NAME, name, NAME, 63)

/* client: behaviour section 6 */
#define RESPITE_SETTINGS_CLIENT(X, C, c)                                                                             \
    X(C, c, TIMEOUT_SECONDS, timeout_seconds, NUMBER_ABOVE, 2, 0, 86400, "the most one request may take")            \
    X(C, c, USER_AGENT, user_agent, HEADER, "respite", "User-Agent of every request")                              \
    X(C, c, MAX_BODY_BYTES, max_body_bytes, INTEGER, 10485760, 0, 9007199254740991,                                 \
      "the most bytes of an answer's body a request reads; a longer body fails it as transport")                    \
    X(C, c, NAME, name, NAME, 63)

/* fleet: behaviour section 11 (a gate shared by a fleet of hosts through Redis) */
#define RESPITE_SETTINGS_FLEET(X, C, c)                                                                              \
    X(C, c, URL, fleet_url, STRING, "", "redis://host:port or redis://host:port/db, with an optional :password@",    \
      "the Redis server that holds the fleet's state")                                                              \
    X(C, c, HOST_ID, fleet_host_id, STRING, "", "any text, or empty for the host's name",                           \
      "this host's id among the fleet's hosts")                                                                     \
    X(C, c, QUORUM, fleet_quorum, INTEGER, 2, 1, 1000,                                                               \
      "distinct hosts whose gates must open within the window to pause the fleet")                                  \
    X(C, c, REFRESH_SECONDS, fleet_refresh_seconds, NUMBER_ABOVE, 0.1, 0, 60,                                        \
      "how often the fleet state is read, and the longest wait on Redis")                                           \
    X(C, c, NAME, name, NAME, 63)

/* Every component, in table order: COMPONENT(ENUM, name). */
#define RESPITE_COMPONENTS(COMPONENT) \
    COMPONENT(GATE, gate) COMPONENT(BACKOFF, backoff) COMPONENT(QUEUE, queue) COMPONENT(SENDER, sender) \
    COMPONENT(CLIENT, client) COMPONENT(FLEET, fleet)

/* Every row of every component: X(COMPONENT, component, ID, name, KIND, ...). */
#define RESPITE_SETTINGS_OF_(C, c, X) RESPITE_SETTINGS_##C(X, C, c)

/* RESPITE_SETTING_<COMPONENT>_<ID>: the row's index in the public table.
 * RESPITE_SETTING_FIRST_<COMPONENT> is the component's first row. */
typedef enum respite_setting_id {
#define RESPITE_SETTING_ID_(C, c, ID, ...) RESPITE_SETTING_##C##_##ID,
#define RESPITE_SETTING_IDS_OF_(C, c)                                                      \
    RESPITE_SETTING_FIRST_##C, RESPITE_SETTING_BEFORE_##C = RESPITE_SETTING_FIRST_##C - 1, \
        RESPITE_SETTINGS_##C(RESPITE_SETTING_ID_, C, c)
    RESPITE_COMPONENTS(RESPITE_SETTING_IDS_OF_)
#undef RESPITE_SETTING_IDS_OF_
#undef RESPITE_SETTING_ID_
    RESPITE_SETTING_COUNT_
} respite_setting_id;

/* The public table: RESPITE_SETTING_COUNT_ rows, component by component. */
extern const respite_setting_info respite_settings_table[];

/* A component: its name and its rows first .. first + count - 1. */
typedef struct respite_component {
    const char *name;
    int first;
    int count;
} respite_component;

extern const respite_component respite_components[];
extern const int respite_components_size;

/* How a text setting's value is checked, per row (STRING: not at all). */
typedef enum respite_text_format {
    RESPITE_TEXT_NONE = 0, /* a number or boolean */
    RESPITE_TEXT_ANY,
    RESPITE_TEXT_HEADER, /* no CR or LF: a header line's value */
    RESPITE_TEXT_HEADER_NAME, /* "" or an HTTP token */
    RESPITE_TEXT_URL,
    RESPITE_TEXT_NAME,
    RESPITE_TEXT_CHOICE,
    RESPITE_TEXT_LIST
} respite_text_format;

extern const unsigned char respite_setting_formats[];

/* A profile: a component with some defaults changed ("name=value,..."). */
typedef struct respite_profile {
    const char *name;
    const char *component;
    const char *overrides;
} respite_profile;

extern const respite_profile respite_profiles[];
extern const int respite_profiles_size;

#endif

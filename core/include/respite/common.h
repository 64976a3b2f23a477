/*
 * respite/common.h - conventions shared by every respite handle: status codes,
 * the error struct, the clock, outcomes, events and settings by name.
 *
 * Conventions (they hold for every function in every respite header):
 *  - One prefix, respite_. Handles are opaque; X_new returns the handle or
 *    NULL, X_free(NULL) is a no-op.
 *  - Every fallible function takes `respite_error *err` as its LAST argument.
 *    It may be NULL. On failure the core fills it (status, message and, for
 *    settings, the setting's name); on success it leaves it untouched, so a
 *    caller may reuse one struct for many calls after zeroing `status`.
 *    The SWIG bindings hide this argument and raise instead.
 *  - Functions that return nothing else return an int status: RESPITE_OK (0)
 *    or a positive respite_status. Functions that return a value signal
 *    failure with a value documented at each declaration (NULL, -1, NaN).
 *  - Times are seconds on a monotonic clock as doubles; every operation
 *    whose result depends on time takes `now` from the caller. Negative,
 *    NaN and infinite times are rejected with RESPITE_E_INVALID_TIME; a time
 *    earlier than one the handle already saw is treated as that later time
 *    (time never goes backwards inside a handle) and is not an error.
 *  - A NULL handle is answered with RESPITE_E_CLOSED and the message
 *    "<handle> is closed" ("gate is closed", "queue is closed"): bindings
 *    pass NULL once their object is closed, so every language says the same.
 *  - Messages are produced here, once, so every language says the same.
 *  - Every function is declared RESPITE_API; nothing else is exported.
 */
#ifndef RESPITE_COMMON_H
#define RESPITE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks every public function: the libraries are built with
 * -fvisibility=hidden, so these are the only symbols they export. */
#if defined(__GNUC__) || defined(__clang__)
#define RESPITE_API __attribute__((visibility("default")))
#else
#define RESPITE_API
#endif

/* ---------------------------------------------------------------- status */

/* X(enum suffix, value, stable name, description) - the one table of status
 * codes. Bindings build their exception hierarchies from the stable names. */
#define RESPITE_STATUS_MAP(X)                                                          \
    X(OK, 0, "ok", "success")                                                         \
    X(E_INVALID_ARGUMENT, 1, "invalid_argument", "an argument is invalid")            \
    X(E_INVALID_SETTING, 2, "invalid_setting", "a setting is unknown or not accepted") \
    X(E_INVALID_TIME, 3, "invalid_time", "a time is negative, NaN or infinite")       \
    X(E_TEMPORARILY_UNAVAILABLE, 4, "temporarily_unavailable",                        \
      "calls to the service are temporarily restricted due to recent failures")       \
    X(E_INVALID_POLICY, 5, "invalid_policy", "the delivery policy is not valid")      \
    X(E_QUEUE_FULL, 6, "queue_full", "the queue is full")                             \
    X(E_TOO_LARGE, 7, "too_large", "the payload is larger than the queue accepts")    \
    X(E_CLOSED, 8, "closed", "the handle is closed")                                  \
    X(E_NO_MEMORY, 9, "no_memory", "out of memory")                                   \
    X(E_TRANSPORT, 10, "transport", "the HTTP call did not complete")                 \
    X(E_INTERNAL, 11, "internal", "internal error")                                   \
    X(E_STORAGE, 12, "storage", "the queue's file could not be opened, read or written") \
    X(E_CANCELLED, 13, "cancelled", "the call was cancelled by its caller")

typedef enum respite_status {
#define RESPITE_STATUS_ENUM_(suffix, value, name, text) RESPITE_##suffix = value,
    RESPITE_STATUS_MAP(RESPITE_STATUS_ENUM_)
#undef RESPITE_STATUS_ENUM_
    RESPITE_STATUS_COUNT_
} respite_status;

/* Stable lower-case name of a status ("invalid_setting"); "unknown" if none. */
RESPITE_API const char *respite_status_name(int status);
/* One-line description of a status; "unknown status" if none. */
RESPITE_API const char *respite_strerror(int status);
/* Number of status codes; codes are 0 .. respite_status_count() - 1. */
RESPITE_API int respite_status_count(void);

/* ----------------------------------------------------------------- error */

#define RESPITE_ERROR_SETTING_MAX 64
#define RESPITE_ERROR_MESSAGE_MAX 512

/* Detail of a failure, filled by the core. Caller-owned: never a global. */
typedef struct respite_error {
    int status;                                /* RESPITE_OK or a respite_status */
    char setting[RESPITE_ERROR_SETTING_MAX];   /* invalid_setting: the setting's name */
    char message[RESPITE_ERROR_MESSAGE_MAX];   /* full sentence, no trailing period */
    double retry_after;                        /* temporarily_unavailable: seconds; INFINITY if never */
} respite_error;

/* Sets err->status = RESPITE_OK and empties the strings (err may be NULL). */
RESPITE_API void respite_error_clear(respite_error *err);

/* E15: text a binding passes with its length (a language string may hold
 * NUL bytes, which a C string would silently end at). RESPITE_OK when none
 * of the `length` bytes is NUL; otherwise invalid_argument,
 * "<what> must be text without NUL bytes (got '5?junk')". Every binding's
 * text typemap calls it before passing the text on. */
RESPITE_API int respite_text_check(const char *text, size_t length, const char *what, respite_error *err);

/* X(enum suffix, noun) - the kinds of handle, named as in "<noun> is closed". */
#define RESPITE_HANDLE_MAP(X)                                                          \
    X(SETTINGS, "settings")                                                           \
    X(GATE, "gate")                                                                   \
    X(BACKOFF, "backoff")                                                             \
    X(PROBLEMS, "problems")                                                           \
    X(POLICY, "policy")                                                               \
    X(POLICY_BUILDER, "policy builder")                                               \
    X(QUEUE, "queue")                                                                 \
    X(BATCH, "batch")                                                                 \
    X(ENGINE, "engine")                                                               \
    X(CLIENT, "client")                                                               \
    X(RESPONSE, "response")                                                           \
    X(SENDER, "sender")                                                               \
    X(FLEET_GATE, "fleet gate")                                                       \
    X(METRICS, "metrics")                                                             \
    X(CANCEL_TOKEN, "cancel token")

typedef enum respite_handle_kind {
#define RESPITE_HANDLE_ENUM_(suffix, noun) RESPITE_HANDLE_##suffix,
    RESPITE_HANDLE_MAP(RESPITE_HANDLE_ENUM_)
#undef RESPITE_HANDLE_ENUM_
    RESPITE_HANDLE_COUNT_
} respite_handle_kind;

/* E9: the closed error of a handle of this kind, always: RESPITE_E_CLOSED,
 * "<noun> is closed" ("response is closed"). For a binding whose object is
 * closed where the core would take NULL as "none" (an optional cancel token,
 * gate or policy) or answers NULL quietly (a response's accessors): it
 * raises the core's words like every other closed call. An unknown kind is
 * invalid_argument. */
RESPITE_API int respite_closed(respite_handle_kind kind, respite_error *err);

/* ----------------------------------------------------------------- clock */

/* Seconds on CLOCK_MONOTONIC. Never the wall clock. */
RESPITE_API double respite_now(void);

/* -------------------------------------------------------------- outcomes */

/* What happened to one call (behaviour section 1). */
typedef enum respite_outcome {
    RESPITE_OUTCOME_SUCCESS = 0,       /* 2xx/3xx the caller could use */
    RESPITE_OUTCOME_REQUEST_ERROR = 1, /* 4xx other than 429: not counted */
    RESPITE_OUTCOME_THROTTLED = 2,     /* 429 */
    RESPITE_OUTCOME_SERVER_ERROR = 3,  /* 5xx */
    RESPITE_OUTCOME_UNUSABLE = 4,      /* 1xx, or 2xx/3xx the caller could not use */
    RESPITE_OUTCOME_TRANSPORT = 5      /* timeout, refused, reset, DNS, TLS */
} respite_outcome;

#define RESPITE_OUTCOME_COUNT 6

/* "success", "request_error", "throttled", "server_error", "unusable",
 * "transport"; NULL for a value that is not an outcome. */
RESPITE_API const char *respite_outcome_name(int outcome);

/* The outcome with that name, or -1 (err: invalid_argument, listing the
 * accepted names). */
RESPITE_API int respite_outcome_from_name(const char *name, respite_error *err);

/* `outcome` when it is a respite_outcome (0-5), else -1 (err:
 * invalid_argument, O1's numeric message): how a binding turns a number
 * into an outcome. */
RESPITE_API int respite_outcome_check(int outcome, respite_error *err);

/* Classifies one call. transport_failed != 0 gives transport whatever the
 * status. Otherwise http_status must be 100-599 (else -1, invalid_argument);
 * body_usable only matters for 1xx-3xx. */
RESPITE_API int respite_classify(int transport_failed, int http_status, int body_usable, respite_error *err);

/* 1 if the outcome counts against the service (section 1), 0 if not, -1 for
 * a value that is not an outcome. count_all_failures != 0 makes every
 * non-success count. */
RESPITE_API int respite_outcome_counts(int outcome, int count_all_failures);

/* ---------------------------------------------------------------- events */

typedef enum respite_event_type {
    RESPITE_EVENT_RECOVERY_STARTED = 0,  /* gate opened: failures, window, pause */
    RESPITE_EVENT_RECOVERY_EXTENDED = 1, /* a probe failed, the gate reopened: pause */
    RESPITE_EVENT_PROBING = 2,           /* the pause ended; probes may be admitted */
    RESPITE_EVENT_RECOVERED = 3,         /* a probe succeeded (or G11's first success) */
    RESPITE_EVENT_RESET = 4,             /* respite_gate_reset */
    RESPITE_EVENT_SEND_FAILED = 5,       /* sender: status (0 = transport), detail */
    RESPITE_EVENT_UNSENT_AT_CLOSE = 6,   /* sender: count events left unsent by close */
    RESPITE_EVENT_FLEET_PAUSED = 7,      /* fleet gate: count hosts opened within window; pause */
    RESPITE_EVENT_FLEET_STORE_LOST = 8,  /* fleet gate: Redis unreachable or slow */
    RESPITE_EVENT_FLEET_REJOINED = 9,    /* fleet gate: Redis answers again */
    RESPITE_EVENT_FLEET_PROBING = 10     /* fleet gate: the fleet's pause ended, another host probes */
} respite_event_type;

#define RESPITE_EVENT_TYPE_COUNT 11
#define RESPITE_EVENT_DETAIL_MAX 256
/* A handle's name (the `name` setting of every component), NUL included. */
#define RESPITE_NAME_MAX 64

/* One transition, with its time and figures (G18). Fields that do not apply
 * to a type are 0. */
typedef struct respite_event {
    int type;                                /* a respite_event_type */
    double at;                               /* when it happened (caller's clock) */
    int64_t failures;                        /* recovery_started: failures in the window */
    double window;                           /* recovery_started, fleet_paused: failures_window_seconds */
    double pause;                            /* recovery_started / _extended, fleet_paused: seconds */
    int http_status;                         /* send_failed: status, 0 for transport */
    int64_t count;                           /* unsent_at_close: events not sent; fleet_paused: hosts */
    char detail[RESPITE_EVENT_DETAIL_MAX];   /* send_failed: start of body or error */
    char source[RESPITE_NAME_MAX];           /* the name of the handle it came from; "" if none */
} respite_event;

/* "recovery_started", "recovery_extended", "probing", "recovered", "reset",
 * "send_failed", "unsent_at_close", "fleet_paused", "fleet_store_lost",
 * "fleet_rejoined"; NULL for a value that is not a type. */
RESPITE_API const char *respite_event_type_name(int type);

/* The event in words, one line, as every binding and the command log it,
 * after the name of the handle it came from when that has one:
 * "billing: recovery started: 10 failures within 100s; requests paused for 60s",
 * "send failed: HTTP 503: <start of the body>", ... (docs/spec.md, G18).
 * Bindings pass the line to their logger unchanged.
 * Valid UTF-8 whatever the detail holds (E3). Written into buf (always
 * NUL-terminated, cut at a character boundary when short); returns the
 * length it needed, like snprintf. */
RESPITE_API size_t respite_event_message(const respite_event *event, char *buf, size_t size);

/* 1 when a binding should log the event as a warning (sending pauses or a
 * pause grows, a send failed, events left unsent), 0 for information. */
RESPITE_API int respite_event_is_warning(int type);

/* Callback a C user may register on a handle; called with the handle's lock
 * held, so it must not call back into the same handle. */
typedef void (*respite_event_callback)(const respite_event *event, void *user_data);

/* ------------------------------------------------------- settings by name */

/* Every setting of every component is defined once, in a table in the core
 * (core/src/settings_table.h): name, type, default, accepted range, doc.
 * Components: "gate", "backoff", "queue", "sender", "client".
 * Profiles (component + other defaults): "cloud_request" and "usage_sharing"
 * (gate). Every component has a setting `name`: the handle's name in its log
 * lines and errors, UTF-8 without control characters, at most
 * RESPITE_NAME_MAX - 1 bytes (so it fits a RESPITE_NAME_MAX buffer). */

typedef enum respite_setting_type {
    RESPITE_SETTING_INTEGER = 0, /* whole number; doubles with no fraction accepted */
    RESPITE_SETTING_NUMBER = 1,  /* finite double */
    RESPITE_SETTING_BOOLEAN = 2,
    RESPITE_SETTING_CHOICE = 3,  /* one of a fixed list of words */
    RESPITE_SETTING_STRING = 4,  /* free text (url, content_type, prefix ...) */
    RESPITE_SETTING_LIST = 5     /* comma-separated words/numbers (retry_on) */
} respite_setting_type;

typedef struct respite_setting_info {
    const char *component;     /* "gate", ... */
    const char *name;          /* "failures_to_enter_recovery" */
    int type;                  /* a respite_setting_type */
    double default_number;     /* integer, number, boolean (0/1) */
    const char *default_text;  /* choice, string, list; NULL otherwise */
    double min;                /* integer/number: lower bound */
    double max;                /* integer/number: upper bound */
    int min_exclusive;         /* 1: value must be > min */
    int max_exclusive;         /* 1: value must be < max */
    const char *choices;       /* choice: "none|full|equal|decorrelated"; else NULL */
    const char *accepted;      /* the accepted range as errors say it */
    const char *doc;           /* one line */
} respite_setting_info;

/* Number of rows in the table, and row i (NULL when out of range). */
RESPITE_API int respite_setting_count(void);
RESPITE_API const respite_setting_info *respite_setting_at(int index);
/* The row for component.name, or NULL. */
RESPITE_API const respite_setting_info *respite_setting_find(const char *component, const char *name);
/* Number of profiles, and profile i's name ("cloud_request", ...; NULL when
 * out of range): respite_settings_new accepts each. */
RESPITE_API int respite_profile_count(void);
RESPITE_API const char *respite_profile_name(int index);

/* A bag of values for one component, starting at its (or a profile's)
 * defaults. Not thread-safe; handles copy what they need at _new. */
typedef struct respite_settings respite_settings;

/* component_or_profile: a component or profile name. NULL and err
 * invalid_setting naming what is accepted when unknown. */
RESPITE_API respite_settings *respite_settings_new(const char *component_or_profile, respite_error *err);
RESPITE_API void respite_settings_free(respite_settings *settings);
/* The component these settings are for ("gate" for both gate profiles). */
RESPITE_API const char *respite_settings_component(const respite_settings *settings);

/* Setters. Each checks name, type and range and returns RESPITE_OK, or
 * RESPITE_E_INVALID_SETTING with err->setting = name and a message that
 * starts with the setting's name, e.g.
 * "failures_to_enter_recovery must be an integer from 1 to 1000 (got 0)".
 * set_number is accepted for integer settings when the value has no
 * fraction, and for boolean settings when it is 0 or 1.
 * set_text parses a number or boolean from text ("2.5", "true") for those
 * types, and is the setter for choice, string and list settings. */
RESPITE_API int respite_settings_set_number(respite_settings *settings, const char *name, double value, respite_error *err);
RESPITE_API int respite_settings_set_integer(respite_settings *settings, const char *name, int64_t value, respite_error *err);
RESPITE_API int respite_settings_set_boolean(respite_settings *settings, const char *name, int value, respite_error *err);
RESPITE_API int respite_settings_set_text(respite_settings *settings, const char *name, const char *value, respite_error *err);

/* Getters: the current value. NaN / -1 / NULL and err when name is unknown
 * or of another type. get_number works for integer, number and boolean. */
RESPITE_API double respite_settings_get_number(const respite_settings *settings, const char *name, respite_error *err);
RESPITE_API const char *respite_settings_get_text(const respite_settings *settings, const char *name, respite_error *err);

/* Checks rules between settings (e.g. max_recovery_seconds >= recovery_seconds
 * when recovery_multiplier > 1). Called by every _new; returns a status. */
RESPITE_API int respite_settings_validate(const respite_settings *settings, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_COMMON_H */

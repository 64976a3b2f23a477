/* Reading a policy from JSON (spec P1-P22): limits that protect the parser,
 * strict parsing with jansson, then validation that lists every problem
 * with a JSON pointer. Validation streams over the document (nothing is
 * stored per handler), so a hostile document costs no more than its size. */
#include "policy_internal.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What each field accepts, as every message says it. */
#define NAME_ACCEPTS "a string of 1 to 128 characters, without line breaks, not starting with '@'"
#define CAPACITY_ACCEPTS "an integer from 1 to 1000000"
#define HANDLERS_ACCEPTS "an array of 1 to 200 handlers"
#define HANDLER_ACCEPTS "an object with the fields on and strategy"
#define ON_ACCEPTS \
    "\"client_error\", \"server_error\", \"any_error\" or a non-empty array of HTTP error codes from 400 to 599"
#define STRATEGY_ACCEPTS "\"discard\" or \"retry\""
#define RETRY_TIMES_ACCEPTS "an integer from 1 to 100"
#define EVENT_TTL_ACCEPTS "an integer number of seconds from 1 to 86400"
#define PREFETCH_ACCEPTS "an integer from 1 to 300"
#define POLICY_FIELDS "name, maximum_capacity, error_handlers, retry_times, event_ttl and prefetch_count"

/* Astarte's own messages, kept word for word. */
#define MSG_DISTINCT "must all handle distinct errors."
#define MSG_RETRY_MISSING "must be set if some events are to be retried."
#define MSG_RETRY_UNEXPECTED "must not be set if all errors are discarded."
#define MSG_CODE "Must be an HTTP error code between 400 and 599"

#define GOT_SIZE 160 /* room for a 32-character string, quoted */

typedef struct code_set {
    uint64_t bits[(POLICY_CODE_COUNT + 63) / 64];
} code_set;

static void set_add(code_set *set, int code)
{
    int i = code - POLICY_CODE_FIRST;
    set->bits[i / 64] |= UINT64_C(1) << (i % 64);
}

static int set_has(const code_set *set, int code)
{
    int i = code - POLICY_CODE_FIRST;
    return (int)((set->bits[i / 64] >> (i % 64)) & 1);
}

static void set_range(code_set *set, int first, int last)
{
    for (int code = first; code <= last; code++)
        set_add(set, code);
}

static int sets_intersect(const code_set *a, const code_set *b)
{
    for (size_t i = 0; i < sizeof a->bits / sizeof a->bits[0]; i++)
        if (a->bits[i] & b->bits[i])
            return 1;
    return 0;
}

/* How a message shows the value it got: "0", "10.5", "\"abc\"", "true",
 * "an array". */
static const char *describe(const json_t *value, char *buf, size_t size)
{
    switch (json_typeof(value)) {
    case JSON_STRING: {
        char text[GOT_SIZE - 8];
        respite_utf8_printable(text, sizeof text, json_string_value(value), json_string_length(value), 32, "...", '?');
        snprintf(buf, size, "\"%s\"", text);
        break;
    }
    case JSON_INTEGER:
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(value));
        break;
    case JSON_REAL:
        respite_format_number(json_real_value(value), buf, size);
        if (!strpbrk(buf, ".eni") && strlen(buf) + 3 <= size)
            strcat(buf, ".0"); /* 10.0 must not read as the integer 10 */
        break;
    case JSON_TRUE:
        snprintf(buf, size, "true");
        break;
    case JSON_FALSE:
        snprintf(buf, size, "false");
        break;
    case JSON_NULL:
        snprintf(buf, size, "null");
        break;
    case JSON_ARRAY:
        snprintf(buf, size, json_array_size(value) ? "an array" : "an empty array");
        break;
    case JSON_OBJECT:
        snprintf(buf, size, "an object");
        break;
    }
    return buf;
}

/* parent + "/" + key, with '~' and '/' escaped as RFC 6901 says; NULL when
 * out of memory. */
static char *pointer_join(const char *parent, const char *key)
{
    size_t extra = 0;
    for (const char *c = key; *c; c++)
        extra += (*c == '~' || *c == '/');
    size_t size = strlen(parent) + 1 + strlen(key) + extra + 1;
    char *out = malloc(size);
    if (!out)
        return NULL;
    char *o = out + sprintf(out, "%s/", parent);
    for (const char *c = key; *c; c++) {
        if (*c == '~' || *c == '/') {
            *o++ = '~';
            *o++ = *c == '~' ? '0' : '1';
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    return out;
}

static void report_unknown_fields(respite_problems *found, const json_t *object, const char *parent,
                                  const char *const *known, const char *what)
{
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)object, key, value) {
        int is_known = 0;
        for (const char *const *k = known; *k; k++)
            is_known |= strcmp(key, *k) == 0;
        if (is_known)
            continue;
        char *pointer = pointer_join(parent, key);
        respite_internal_problems_add(found, pointer ? pointer : parent, 0, 0, "%s", what);
        free(pointer);
    }
}

/* An optional or required integer field. Returns 1 and *out when present
 * and valid; 0 otherwise (a problem is added unless it is optional and
 * absent). */
static int check_integer(respite_problems *found, const json_t *object, const char *key, json_int_t min,
                         json_int_t max, const char *accepts, int required, int *out)
{
    char pointer[64];
    snprintf(pointer, sizeof pointer, "/%s", key);
    const json_t *value = json_object_get(object, key);
    if (!value) {
        if (required)
            respite_internal_problems_add(found, pointer, 0, 0, "is required and must be %s", accepts);
        return 0;
    }
    if (!json_is_integer(value) || json_integer_value(value) < min || json_integer_value(value) > max) {
        char got[GOT_SIZE];
        respite_internal_problems_add(found, pointer, 0, 0, "must be %s (got %s)", accepts,
                                      describe(value, got, sizeof got));
        return 0;
    }
    *out = (int)json_integer_value(value);
    return 1;
}

static void check_name(respite_problems *found, const json_t *document)
{
    const json_t *value = json_object_get(document, "name");
    char got[GOT_SIZE];
    if (!value) {
        respite_internal_problems_add(found, "/name", 0, 0, "is required and must be " NAME_ACCEPTS);
        return;
    }
    if (!json_is_string(value)) {
        respite_internal_problems_add(found, "/name", 0, 0, "must be " NAME_ACCEPTS " (got %s)",
                                      describe(value, got, sizeof got));
        return;
    }
    const char *text = json_string_value(value);
    size_t bytes = json_string_length(value);
    long chars = respite_utf8_length(text, bytes);
    if (chars < 0) {
        respite_internal_problems_add(found, "/name", 0, 0, "must be valid UTF-8 text");
        return;
    }
    if (chars == 0)
        respite_internal_problems_add(found, "/name", 0, 0, "must not be empty");
    if (chars > POLICY_NAME_MAX_CHARS)
        respite_internal_problems_add(found, "/name", 0, 0, "must be at most 128 characters long (got %ld)", chars);
    if (memchr(text, '\n', bytes) || memchr(text, '\r', bytes))
        respite_internal_problems_add(found, "/name", 0, 0, "must not contain a line break");
    if (text[0] == '@')
        respite_internal_problems_add(found, "/name", 0, 0,
                                      "must not start with '@', which marks built-in policies such as @default");
}

/* The codes a handler's "on" covers; 1 when it is valid. */
static int check_on(respite_problems *found, const json_t *handler, int index, code_set *codes)
{
    char pointer[64], got[GOT_SIZE]; /* filled only when there is a problem */
    const json_t *on = json_object_get(handler, "on");
    memset(codes, 0, sizeof *codes);
    if (!on) {
        snprintf(pointer, sizeof pointer, "/error_handlers/%d/on", index);
        respite_internal_problems_add(found, pointer, 0, 0, "is required and must be " ON_ACCEPTS);
        return 0;
    }
    if (json_is_string(on)) {
        const char *word = json_string_value(on);
        if (strcmp(word, "client_error") == 0)
            set_range(codes, 400, 499);
        else if (strcmp(word, "server_error") == 0)
            set_range(codes, 500, 599);
        else if (strcmp(word, "any_error") == 0)
            set_range(codes, 400, 599);
        else
            goto not_accepted;
        return 1;
    }
    if (!json_is_array(on) || json_array_size(on) == 0)
        goto not_accepted;
    int valid = 1;
    size_t i;
    const json_t *element;
    json_array_foreach(on, i, element) {
        char element_pointer[96];
        json_int_t code = json_is_integer(element) ? json_integer_value(element) : 0;
        int in_range = code >= POLICY_CODE_FIRST && code <= POLICY_CODE_LAST;
        if (!in_range || set_has(codes, (int)code))
            snprintf(element_pointer, sizeof element_pointer, "/error_handlers/%d/on/%zu", index, i);
        if (!in_range) {
            respite_internal_problems_add(found, element_pointer, 0, 0, MSG_CODE);
            valid = 0;
        } else if (set_has(codes, (int)code)) {
            respite_internal_problems_add(found, element_pointer, 0, 0,
                                          "repeats the code %d, already listed in this array", (int)code);
            valid = 0;
        } else {
            set_add(codes, (int)code);
        }
    }
    return valid;

not_accepted:
    snprintf(pointer, sizeof pointer, "/error_handlers/%d/on", index);
    respite_internal_problems_add(found, pointer, 0, 0, "must be " ON_ACCEPTS " (got %s)",
                                  describe(on, got, sizeof got));
    return 0;
}

/* A handler's strategy, or -1 when it is not valid. */
static int check_strategy(respite_problems *found, const json_t *handler, int index)
{
    char pointer[64], got[GOT_SIZE];
    const json_t *value = json_object_get(handler, "strategy");
    if (!value) {
        snprintf(pointer, sizeof pointer, "/error_handlers/%d/strategy", index);
        respite_internal_problems_add(found, pointer, 0, 0, "is required and must be " STRATEGY_ACCEPTS);
        return -1;
    }
    const char *word = json_is_string(value) ? json_string_value(value) : "";
    if (strcmp(word, "discard") == 0)
        return RESPITE_STRATEGY_DISCARD;
    if (strcmp(word, "retry") == 0)
        return RESPITE_STRATEGY_RETRY;
    snprintf(pointer, sizeof pointer, "/error_handlers/%d/strategy", index);
    respite_internal_problems_add(found, pointer, 0, 0, "must be " STRATEGY_ACCEPTS " (got %s)",
                                  describe(value, got, sizeof got));
    return -1;
}

typedef struct handlers_summary {
    int is_array;          /* error_handlers is an array (its handlers were read) */
    int any_retry;         /* some handler's strategy is retry */
    int unknown_strategy;  /* some handler's strategy could not be read */
} handlers_summary;

static handlers_summary check_handlers(respite_problems *found, const json_t *document)
{
    static const char *const handler_fields[] = {"on", "strategy", NULL};
    handlers_summary summary = {0, 0, 0};
    const json_t *handlers = json_object_get(document, "error_handlers");
    char got[GOT_SIZE];
    if (!handlers) {
        respite_internal_problems_add(found, "/error_handlers", 0, 0, "is required and must be " HANDLERS_ACCEPTS);
        return summary;
    }
    if (!json_is_array(handlers)) {
        respite_internal_problems_add(found, "/error_handlers", 0, 0, "must be " HANDLERS_ACCEPTS " (got %s)",
                                      describe(handlers, got, sizeof got));
        return summary;
    }
    summary.is_array = 1;
    size_t count = json_array_size(handlers);
    if (count < 1 || count > POLICY_HANDLERS_MAX)
        respite_internal_problems_add(found, "/error_handlers", 0, 0,
                                      "must be " HANDLERS_ACCEPTS " (got %zu handler%s)", count, count == 1 ? "" : "s");
    code_set covered = {{0}};
    int overlap = 0;
    size_t i;
    const json_t *handler;
    json_array_foreach(handlers, i, handler) {
        char pointer[48];
        if (!json_is_object(handler)) {
            snprintf(pointer, sizeof pointer, "/error_handlers/%zu", i);
            respite_internal_problems_add(found, pointer, 0, 0, "must be " HANDLER_ACCEPTS " (got %s)",
                                          describe(handler, got, sizeof got));
            summary.unknown_strategy = 1;
            continue;
        }
        code_set codes;
        if (check_on(found, handler, (int)i, &codes)) {
            overlap |= sets_intersect(&codes, &covered);
            for (size_t w = 0; w < sizeof codes.bits / sizeof codes.bits[0]; w++)
                covered.bits[w] |= codes.bits[w];
        }
        int strategy = check_strategy(found, handler, (int)i);
        summary.any_retry |= strategy == RESPITE_STRATEGY_RETRY;
        summary.unknown_strategy |= strategy < 0;
        size_t known = (json_object_get(handler, "on") != NULL) + (json_object_get(handler, "strategy") != NULL);
        if (json_object_size(handler) > known) {
            snprintf(pointer, sizeof pointer, "/error_handlers/%zu", i);
            report_unknown_fields(found, handler, pointer, handler_fields,
                                  "is not a handler field; a handler has the fields on and strategy");
        }
    }
    if (overlap)
        respite_internal_problems_add(found, "/error_handlers", 0, 0, MSG_DISTINCT);
    return summary;
}

/* The second pass, only for a document without problems. */
static respite_policy *build(const json_t *document)
{
    const json_t *handlers = json_object_get(document, "error_handlers");
    int count = (int)json_array_size(handlers);
    respite_policy *policy = respite_internal_policy_alloc(json_string_value(json_object_get(document, "name")), count);
    if (!policy)
        return NULL;
    policy->maximum_capacity = (int)json_integer_value(json_object_get(document, "maximum_capacity"));
    policy->retry_times = (int)json_integer_value(json_object_get(document, "retry_times"));
    policy->event_ttl = (int)json_integer_value(json_object_get(document, "event_ttl"));
    policy->prefetch_count = (int)json_integer_value(json_object_get(document, "prefetch_count"));
    for (int i = 0; i < count; i++) {
        const json_t *handler = json_array_get(handlers, (size_t)i);
        const json_t *on = json_object_get(handler, "on");
        int strategy = strcmp(json_string_value(json_object_get(handler, "strategy")), "retry") == 0
                           ? RESPITE_STRATEGY_RETRY
                           : RESPITE_STRATEGY_DISCARD;
        int kind = POLICY_ON_CODES, codes[POLICY_CODE_COUNT], code_count = 0;
        if (json_is_string(on)) {
            const char *word = json_string_value(on);
            kind = strcmp(word, "client_error") == 0   ? POLICY_ON_CLIENT_ERROR
                   : strcmp(word, "server_error") == 0 ? POLICY_ON_SERVER_ERROR
                                                       : POLICY_ON_ANY_ERROR;
        } else {
            size_t j;
            const json_t *code;
            json_array_foreach(on, j, code) codes[code_count++] = (int)json_integer_value(code);
        }
        if (respite_internal_policy_set_handler(policy, i, kind, strategy, codes, code_count) != 0) {
            respite_policy_free(policy);
            return NULL;
        }
    }
    return policy;
}

respite_policy *respite_internal_policy_from_document(const json_t *document, respite_problems *found)
{
    static const char *const policy_fields[] = {"name",      "maximum_capacity", "error_handlers",
                                                "retry_times", "event_ttl",      "prefetch_count", NULL};
    if (!json_is_object(document)) {
        char got[GOT_SIZE];
        respite_internal_problems_add(found, "", 0, 0, "a policy must be a JSON object (got %s)",
                                      describe(document, got, sizeof got));
        return NULL;
    }
    int ignored;
    check_name(found, document);
    check_integer(found, document, "maximum_capacity", 1, POLICY_CAPACITY_MAX, CAPACITY_ACCEPTS, 1, &ignored);
    handlers_summary handlers = check_handlers(found, document);
    /* D3's retry_times goes with retrying, and only with it. */
    if (json_object_get(document, "retry_times")) {
        check_integer(found, document, "retry_times", 1, POLICY_RETRY_TIMES_MAX, RETRY_TIMES_ACCEPTS, 0, &ignored);
        if (handlers.is_array && !handlers.any_retry && !handlers.unknown_strategy)
            respite_internal_problems_add(found, "/retry_times", 0, 0, MSG_RETRY_UNEXPECTED);
    } else if (handlers.any_retry) {
        respite_internal_problems_add(found, "/retry_times", 0, 0, MSG_RETRY_MISSING);
    }
    check_integer(found, document, "event_ttl", 1, POLICY_EVENT_TTL_MAX, EVENT_TTL_ACCEPTS, 0, &ignored);
    check_integer(found, document, "prefetch_count", 1, POLICY_PREFETCH_MAX, PREFETCH_ACCEPTS, 0, &ignored);
    report_unknown_fields(found, document, "", policy_fields, "is not a policy field; the fields are " POLICY_FIELDS);
    if (respite_problems_count(found) > 0 || respite_internal_problems_dropped(found) > 0 ||
        respite_internal_problems_out_of_memory(found))
        return NULL;
    respite_policy *policy = build(document);
    if (!policy)
        respite_internal_problems_mark_out_of_memory(found); /* respite_internal_policy_finish reports no_memory */
    return policy;
}

/* ------------------------------------------------------------- parsing */

static int is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* P2: finds the first '[' or '{' nested deeper than the limit, outside
 * strings, before jansson recurses into it. 1 and its line and column
 * (counted in characters, as jansson counts) when there is one. */
static int too_deep(const char *text, size_t length, int *line, int *column)
{
    int depth = 0, in_string = 0, escaped = 0;
    *line = 1;
    *column = 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            (*line)++;
            *column = 0;
        } else if ((c & 0xC0) != 0x80) {
            (*column)++;
        }
        if (in_string) {
            if (escaped)
                escaped = 0;
            else if (c == '\\')
                escaped = 1;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            if (++depth > RESPITE_POLICY_MAX_DEPTH)
                return 1;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return 0;
}

static void add_syntax_problem(respite_problems *found, const json_error_t *error)
{
    char near[JSON_ERROR_TEXT_LENGTH * 4];
    respite_utf8_printable(near, sizeof near, error->text, strlen(error->text), JSON_ERROR_TEXT_LENGTH, "...", '?');
    if (json_error_code(error) == json_error_invalid_utf8)
        respite_internal_problems_add(found, "", error->line, error->column,
                                      "invalid JSON at line %d, column %d: the text is not valid UTF-8 (%s)",
                                      error->line, error->column, near);
    else if (json_error_code(error) == json_error_null_character)
        respite_internal_problems_add(found, "", error->line, error->column,
                     "invalid JSON at line %d, column %d: a string contains \\u0000, which is not accepted",
                     error->line, error->column);
    else
        respite_internal_problems_add(found, "", error->line, error->column, "invalid JSON at line %d, column %d: %s",
                                      error->line, error->column, near);
}

static respite_policy *parse(const char *json, size_t length, respite_problems *found)
{
    if (length > RESPITE_POLICY_MAX_BYTES) {
        /* Not the length: a reader may stop one byte past the limit (P1). */
        respite_internal_problems_add(found, "", 0, 0,
                                      "the document is longer than %d bytes; at most %d bytes are accepted",
                                      RESPITE_POLICY_MAX_BYTES, RESPITE_POLICY_MAX_BYTES);
        return NULL;
    }
    size_t first = 0;
    while (first < length && is_json_space(json[first]))
        first++;
    if (first == length) {
        respite_internal_problems_add(found, "", 0, 0, "the document is empty; a policy is a JSON object");
        return NULL;
    }
    int line, column;
    if (too_deep(json, length, &line, &column)) {
        respite_internal_problems_add(found, "", line, column,
                     "the document nests arrays and objects more than %d levels deep (at line %d, column %d); "
                     "a policy needs 4",
                     RESPITE_POLICY_MAX_DEPTH, line, column);
        return NULL;
    }
    json_error_t error;
    json_t *document = json_loadb(json, length, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
    if (!document) {
        if (json_error_code(&error) == json_error_out_of_memory)
            respite_internal_problems_mark_out_of_memory(found);
        else
            add_syntax_problem(found, &error);
        return NULL;
    }
    respite_policy *policy = respite_internal_policy_from_document(document, found);
    json_decref(document);
    return policy;
}

respite_policy *respite_policy_from_json_n(const char *json, size_t length, respite_problems *problems,
                                           respite_error *err)
{
    if (!json) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "json is NULL; a policy is the text of a JSON object");
        return NULL;
    }
    respite_problems *found = respite_problems_new(err);
    if (!found)
        return NULL;
    return respite_internal_policy_finish(parse(json, length, found), found, problems, err);
}

respite_policy *respite_policy_from_json(const char *json, respite_problems *problems, respite_error *err)
{
    return respite_policy_from_json_n(json, json ? strlen(json) : 0, problems, err);
}

/* Script language (README.md): "10*503 retry_after=1; hang; healthy". */
#include "fault_script.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *error, size_t size, const char *fmt, ...)
{
    if (error && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error, size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void answer_free(fault_answer *a)
{
    free(a->body);
    free(a->retry_after);
    free(a->header);
    memset(a, 0, sizeof *a);
}

void fault_script_free(fault_script *script)
{
    for (size_t i = 0; i < script->count; i++) {
        answer_free(&script->steps[i].answer);
        for (int j = 0; j < script->steps[i].fault_count; j++)
            answer_free(&script->steps[i].faults[j]);
    }
    free(script->steps);
    memset(script, 0, sizeof *script);
}

/* ---------------------------------------------------------- tokenizer */

/* Splits one step into words; a value may be double-quoted ("a b"), with
 * \" and \\ inside. Returns the number of words or -1. */
#define MAX_WORDS 32
static int split_words(const char *step, char words[MAX_WORDS][1024], char *error, size_t size)
{
    int n = 0;
    const char *p = step;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            return n;
        if (n == MAX_WORDS)
            return fail(error, size, "step \"%.80s\" has more than %d words", step, MAX_WORDS);
        size_t len = 0;
        int quoted = 0;
        while (*p && (quoted || (*p != ' ' && *p != '\t' && *p != '\r'))) {
            char c = *p++;
            if (c == '"') {
                quoted = !quoted;
                continue;
            }
            if (quoted && c == '\\' && (*p == '"' || *p == '\\'))
                c = *p++;
            if (len + 1 >= sizeof words[n])
                return fail(error, size, "a word of step \"%.80s\" is longer than 1023 characters", step);
            words[n][len++] = c;
        }
        if (quoted)
            return fail(error, size, "step \"%.80s\" has an unclosed quote", step);
        words[n][len] = '\0';
        n++;
    }
}

static int parse_number(const char *text, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0.0) || v > 1e9)
        return -1;
    *out = v;
    return 0;
}

/* "hang", "503", "healthy", ... into a. */
static int parse_answer_word(const char *word, fault_answer *a)
{
    memset(a, 0, sizeof *a);
    if (strcmp(word, "healthy") == 0 || strcmp(word, "ok") == 0) {
        a->status = 200;
    } else if (strcmp(word, "down") == 0) {
        a->status = 503;
    } else if (strcmp(word, "hang") == 0 || strcmp(word, "timeout") == 0) {
        a->kind = FAULT_HANG;
        a->delay = 60.0;
    } else if (strcmp(word, "reset") == 0) {
        a->kind = FAULT_RESET;
    } else if (strcmp(word, "close") == 0) {
        a->kind = FAULT_CLOSE;
    } else if (strcmp(word, "garbage") == 0) {
        a->kind = FAULT_GARBAGE;
        a->status = 200;
    } else {
        char *end = NULL;
        long status = strtol(word, &end, 10);
        if (end == word || *end || status < 200 || status > 599)
            return -1;
        a->status = (int)status;
    }
    return 0;
}

static int parse_faults(const char *list, fault_step *step, char *error, size_t size)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (step->fault_count == FAULT_RANDOM_MAX)
            return fail(error, size, "faults lists at most %d answers", FAULT_RANDOM_MAX);
        fault_answer *a = &step->faults[step->fault_count];
        if (parse_answer_word(item, a) != 0)
            return fail(error, size, "faults: \"%s\" is not a status from 200 to 599, hang, reset, close or garbage",
                        item);
        step->fault_count++;
    }
    if (step->fault_count == 0)
        return fail(error, size, "faults must list at least one answer");
    return 0;
}

static int parse_words(const char *text, char words[MAX_WORDS][1024], fault_step *step, char *error, size_t size);

static int parse_step(const char *text, fault_step *step, char *error, size_t size)
{
    memset(step, 0, sizeof *step);
    char(*words)[1024] = malloc(MAX_WORDS * sizeof *words);
    if (!words)
        return fail(error, size, "out of memory");
    int rc = parse_words(text, words, step, error, size);
    free(words);
    return rc;
}

static int parse_words(const char *text, char words[MAX_WORDS][1024], fault_step *step, char *error, size_t size)
{
    int n = split_words(text, words, error, size);
    if (n < 0)
        return -1;
    step->count = 1;
    const char *first = words[0];
    char *star = strchr(words[0], '*');
    if (star) {
        char *end = NULL;
        long long count = strtoll(words[0], &end, 10);
        if (end != star || count < 1)
            return fail(error, size, "step \"%.80s\": the count before * must be an integer of at least 1", text);
        step->count = count;
        first = star + 1;
    }
    if (strcmp(first, "random") == 0) {
        step->random = 1;
        step->p = 0.5;
        step->rng = 1;
        step->answer.status = 200;
    } else if (parse_answer_word(first, &step->answer) != 0) {
        return fail(error, size,
                    "step \"%.80s\": \"%s\" is not an answer (a status from 200 to 599, healthy, down, hang, reset, "
                    "close, garbage or random)",
                    text, first);
    }
    int have_faults = 0;
    for (int i = 1; i < n; i++) {
        char *eq = strchr(words[i], '=');
        if (!eq)
            return fail(error, size, "step \"%.80s\": option \"%s\" must be name=value", text, words[i]);
        *eq = '\0';
        const char *name = words[i], *value = eq + 1;
        fault_answer *a = &step->answer;
        if (strcmp(name, "delay") == 0 || strcmp(name, "for") == 0) {
            if (parse_number(value, &a->delay) != 0)
                return fail(error, size, "step \"%.80s\": %s must be seconds from 0 (got \"%s\")", text, name, value);
        } else if (strcmp(name, "retry_after") == 0) {
            free(a->retry_after);
            a->retry_after = strdup(value);
        } else if (strcmp(name, "length") == 0) {
            char *end = NULL;
            a->endless = strcmp(value, "endless") == 0;
            a->length = a->endless ? 0 : strtoll(value, &end, 10);
            if (!a->endless && (end == value || *end || a->length < 1))
                return fail(error, size, "step \"%.80s\": length must be bytes from 1, or endless (got \"%s\")",
                            text, value);
        } else if (strcmp(name, "drip") == 0) {
            if (parse_number(value, &a->drip) != 0)
                return fail(error, size, "step \"%.80s\": drip must be seconds from 0 (got \"%s\")", text, value);
        } else if (strcmp(name, "body") == 0) {
            free(a->body);
            a->body = strdup(value);
        } else if (strcmp(name, "header") == 0) {
            char *colon = strchr(value, ':');
            if (!colon || colon == value)
                return fail(error, size, "step \"%.80s\": header must be Name:value (got \"%s\")", text, value);
            free(a->header);
            a->header = strdup(value);
        } else if (step->random && strcmp(name, "p") == 0) {
            if (parse_number(value, &step->p) != 0 || step->p > 1.0)
                return fail(error, size, "step \"%.80s\": p must be a probability from 0 to 1 (got \"%s\")", text,
                            value);
        } else if (step->random && strcmp(name, "seed") == 0) {
            step->rng = strtoull(value, NULL, 10);
        } else if (step->random && strcmp(name, "faults") == 0) {
            if (parse_faults(value, step, error, size) != 0)
                return -1;
            have_faults = 1;
        } else {
            return fail(error, size, "step \"%.80s\": unknown option \"%s\"", text, name);
        }
    }
    if (step->random && !have_faults) {
        step->fault_count = 1;
        step->faults[0].status = 503;
    }
    return 0;
}

static int append_step(fault_script *out, const char *text, char *error, size_t size)
{
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    if (!*p || *p == '#')
        return 0; /* blank line or comment */
    fault_step *grown = realloc(out->steps, (out->count + 1) * sizeof *grown);
    if (!grown)
        return fail(error, size, "out of memory");
    out->steps = grown;
    if (parse_step(p, &out->steps[out->count], error, size) != 0) {
        fault_step *s = &out->steps[out->count];
        answer_free(&s->answer);
        for (int j = 0; j < s->fault_count; j++)
            answer_free(&s->faults[j]);
        return -1;
    }
    out->count++;
    return 0;
}

/* Steps of a text script: split at ';' and newlines outside quotes. */
static int parse_text(const char *text, fault_script *out, char *error, size_t size)
{
    size_t len = strlen(text);
    char *step = malloc(len + 1);
    if (!step)
        return fail(error, size, "out of memory");
    size_t n = 0;
    int quoted = 0;
    for (const char *p = text;; p++) {
        if (*p == '"' && (p == text || p[-1] != '\\'))
            quoted = !quoted;
        if (!*p || (!quoted && (*p == ';' || *p == '\n'))) {
            step[n] = '\0';
            if (append_step(out, step, error, size) != 0) {
                free(step);
                return -1;
            }
            n = 0;
            if (!*p)
                break;
            continue;
        }
        step[n++] = *p;
    }
    free(step);
    return 0;
}

int fault_script_parse(const char *text, fault_script *out, char *error, size_t size)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return fail(error, size, "the script is empty");
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    int rc = 0;
    if (*p == '[') {
        json_error_t jerr;
        json_t *array = json_loads(p, 0, &jerr);
        if (!json_is_array(array)) {
            json_decref(array);
            return fail(error, size, "the JSON script must be an array of step strings (%s at line %d, column %d)",
                        jerr.text, jerr.line, jerr.column);
        }
        size_t i;
        json_t *item;
        json_array_foreach(array, i, item)
        {
            if (!json_is_string(item)) {
                rc = fail(error, size, "the JSON script must be an array of step strings (item %zu is not)", i);
                break;
            }
            if ((rc = parse_text(json_string_value(item), out, error, size)) != 0)
                break;
        }
        json_decref(array);
    } else {
        rc = parse_text(p, out, error, size);
    }
    if (rc == 0 && out->count == 0)
        rc = fail(error, size, "the script has no steps");
    if (rc != 0)
        fault_script_free(out);
    return rc;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

const fault_answer *fault_script_next(fault_script *script)
{
    fault_step *step = &script->steps[script->current];
    script->used++;
    if (script->used >= step->count && script->current + 1 < script->count) {
        script->current++;
        script->used = 0;
    }
    if (!step->random)
        return &step->answer;
    double u = (double)(splitmix64(&step->rng) >> 11) * 0x1.0p-53;
    if (u >= step->p)
        return &step->answer;
    return &step->faults[splitmix64(&step->rng) % (uint64_t)step->fault_count];
}

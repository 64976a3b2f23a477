/* The list of validation problems a policy document has: each a JSON
 * pointer, a message and, for syntax errors, a line and column. */
#include "policy_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct problem {
    char *pointer;
    char *message;
    int line;
    int column;
} problem;

struct respite_problems {
    int count;
    int capacity;
    problem *items;
    int dropped;       /* adds refused past RESPITE_POLICY_MAX_PROBLEMS */
    int out_of_memory; /* an add could not allocate */
};

respite_problems *respite_problems_new(respite_error *err)
{
    respite_problems *problems = calloc(1, sizeof *problems);
    if (!problems)
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory making a problems list");
    return problems;
}

static void clear_items(respite_problems *problems)
{
    for (int i = 0; i < problems->count; i++) {
        free(problems->items[i].pointer);
        free(problems->items[i].message);
    }
    problems->count = 0;
    problems->dropped = 0;
    problems->out_of_memory = 0;
}

void respite_problems_free(respite_problems *problems)
{
    if (!problems)
        return;
    clear_items(problems);
    free(problems->items);
    free(problems);
}

int respite_problems_clear(respite_problems *problems, respite_error *err)
{
    if (!problems)
        return respite_closed(RESPITE_HANDLE_PROBLEMS, err);
    clear_items(problems);
    return RESPITE_OK;
}

int respite_problems_count(const respite_problems *problems)
{
    return problems ? problems->count : 0;
}

static const problem *item(const respite_problems *problems, int index)
{
    if (!problems || index < 0 || index >= problems->count)
        return NULL;
    return &problems->items[index];
}

const char *respite_problems_pointer(const respite_problems *problems, int index)
{
    const problem *p = item(problems, index);
    return p ? p->pointer : NULL;
}

const char *respite_problems_message(const respite_problems *problems, int index)
{
    const problem *p = item(problems, index);
    return p ? p->message : NULL;
}

int respite_problems_line(const respite_problems *problems, int index)
{
    const problem *p = item(problems, index);
    return p ? p->line : 0;
}

int respite_problems_column(const respite_problems *problems, int index)
{
    const problem *p = item(problems, index);
    return p ? p->column : 0;
}

/* Takes ownership of message. */
static void push(respite_problems *problems, const char *pointer, int line, int column, char *message)
{
    if (!message) {
        problems->out_of_memory = 1;
        return;
    }
    if (problems->count == problems->capacity) {
        int capacity = problems->capacity ? problems->capacity * 2 : 8;
        problem *items = realloc(problems->items, (size_t)capacity * sizeof *items);
        if (!items) {
            free(message);
            problems->out_of_memory = 1;
            return;
        }
        problems->items = items;
        problems->capacity = capacity;
    }
    char *pointer_copy = policy_copy(pointer ? pointer : "");
    if (!pointer_copy) {
        free(message);
        problems->out_of_memory = 1;
        return;
    }
    problems->items[problems->count++] = (problem){pointer_copy, message, line, column};
}

static char *format_message(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *text = malloc((size_t)n + 1);
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, ap);
    return text;
}

void respite_internal_problems_add(respite_problems *problems, const char *pointer, int line, int column,
                                   const char *fmt, ...)
{
    if (problems->count >= RESPITE_POLICY_MAX_PROBLEMS) {
        problems->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *message = format_message(fmt, ap);
    va_end(ap);
    push(problems, pointer, line, column, message);
}

int respite_internal_problems_dropped(const respite_problems *problems)
{
    return problems->dropped;
}

int respite_internal_problems_out_of_memory(const respite_problems *problems)
{
    return problems->out_of_memory;
}

void respite_internal_problems_mark_out_of_memory(respite_problems *problems)
{
    problems->out_of_memory = 1;
}

int respite_internal_problems_append_all(respite_problems *dst, const respite_problems *src)
{
    if (!dst)
        return RESPITE_OK;
    for (int i = 0; i < src->count; i++) {
        const problem *p = &src->items[i];
        push(dst, p->pointer, p->line, p->column, policy_copy(p->message));
    }
    if (dst->out_of_memory)
        return RESPITE_E_NO_MEMORY;
    if (src->dropped) {
        char text[160];
        snprintf(text, sizeof text, "too many problems: %d more were found and not listed", src->dropped);
        push(dst, "", 0, 0, policy_copy(text));
    }
    return dst->out_of_memory ? RESPITE_E_NO_MEMORY : RESPITE_OK;
}

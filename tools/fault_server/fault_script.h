/* The fault server's script: parsing and choosing the answer to a request. */
#ifndef RESPITE_FAULT_SCRIPT_H
#define RESPITE_FAULT_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

typedef enum fault_kind {
    FAULT_STATUS = 0, /* answer with status, body, headers after delay */
    FAULT_HANG = 1,   /* no answer for `delay` seconds (default 60), then close */
    FAULT_RESET = 2,  /* close with a TCP reset, no answer */
    FAULT_CLOSE = 3,  /* close without an answer */
    FAULT_GARBAGE = 4 /* 200 with a body of random bytes */
} fault_kind;

typedef struct fault_answer {
    int kind;
    int status;
    double delay;
    char *body;        /* NULL: a short default text */
    char *retry_after; /* NULL: no Retry-After header */
    char *header;      /* "Name: value" or NULL */
    int64_t length;    /* > 0: the body (default "x") repeated to this many bytes */
    int endless;       /* 1: the body repeated forever (chunked) */
    double drip;       /* > 0: streamed, one piece of at most 64 bytes per drip seconds */
} fault_answer;

#define FAULT_RANDOM_MAX 16

typedef struct fault_step {
    int64_t count;     /* requests this step answers (the last step: all) */
    fault_answer answer;
    int random;        /* 1: answer = 200 with probability 1 - p, else a fault */
    double p;
    uint64_t rng;      /* splitmix64 state, from seed */
    int fault_count;
    fault_answer faults[FAULT_RANDOM_MAX];
} fault_step;

typedef struct fault_script {
    fault_step *steps;
    size_t count;
    size_t current;     /* step answering now */
    int64_t used;       /* requests the current step has answered */
} fault_script;

/* Parses text (steps separated by ';' or newlines) or a JSON array of step
 * strings. 0, or -1 and a message in error. */
int fault_script_parse(const char *text, fault_script *out, char *error, size_t error_size);
void fault_script_free(fault_script *script);

/* The answer to the next request (advances the script). The result points
 * into the script: copy what is needed before the script changes. */
const fault_answer *fault_script_next(fault_script *script);

#endif

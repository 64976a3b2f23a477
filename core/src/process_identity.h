/* Who holds a lease across processes: a pid alone is reused, so a lease
 * also records the process's start time (/proc/<pid>/stat field 22). */
#ifndef RESPITE_PROCESS_IDENTITY_H
#define RESPITE_PROCESS_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

typedef struct respite_process_identity {
    int32_t pid;
    uint64_t start; /* clock ticks after boot; 0 when unknown */
} respite_process_identity;

/* This process (read once per process, again after a fork). */
respite_process_identity respite_process_self(void);

/* True when the process the identity names has ended: no such pid, or a
 * pid now used by a process that started at another time. */
bool respite_process_gone(respite_process_identity who);

#endif

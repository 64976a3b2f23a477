/* Process identities for probe leases (docs/spec.md H7). */
#include "process_identity.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Field 22 (starttime) of /proc/<pid>/stat; 0 when it cannot be read. The
 * command name (field 2) may hold spaces and parentheses: count from the
 * last ')'. */
static uint64_t start_time_of(int32_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    char *p = strrchr(text, ')');
    if (!p)
        return 0;
    p++;
    for (int field = 2; field < 21 && p; field++) /* p is at the space before field + 1 */
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static _Atomic int32_t cached_pid;
static _Atomic uint64_t cached_start;

respite_process_identity respite_process_self(void)
{
    respite_process_identity self = {(int32_t)getpid(), 0};
    if (atomic_load_explicit(&cached_pid, memory_order_acquire) == self.pid) {
        self.start = atomic_load_explicit(&cached_start, memory_order_relaxed);
        return self;
    }
    self.start = start_time_of(self.pid);
    atomic_store_explicit(&cached_start, self.start, memory_order_relaxed);
    atomic_store_explicit(&cached_pid, self.pid, memory_order_release);
    return self;
}

bool respite_process_gone(respite_process_identity who)
{
    if (who.pid <= 0)
        return false;
    if (kill(who.pid, 0) != 0 && errno == ESRCH)
        return true;
    /* Alive (or another user's: EPERM): the same process only if it started then. */
    uint64_t start = start_time_of(who.pid);
    return who.start != 0 && start != 0 && start != who.start;
}

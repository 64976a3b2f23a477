/* Which process a sender or client was made in (S15, C11): a counter that
 * goes up in every child fork() makes, never in the parent. A handle keeps
 * the value it was made with; another value means it is the parent's. */
#include "http_internal.h"

#include <pthread.h>

static _Atomic unsigned forks_seen;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static void count_fork(void)
{
    atomic_fetch_add(&forks_seen, 1);
}

static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, count_fork);
}

unsigned respite_http_fork_generation(void)
{
    pthread_once(&watch_once, watch_forks);
    return atomic_load_explicit(&forks_seen, memory_order_relaxed);
}

/* The cancel token (spec C10): a flag another thread sets, which wakes the
 * transfers (their multi handles) and the sleeps that wait on it. */
#include "http_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct respite_cancel_token {
    _Atomic int refs;
    _Atomic int cancelled;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* on CLOCK_MONOTONIC */
    respite_cancel_waiter *transfers; /* in flight now: woken by a cancel */
};

respite_cancel_token *respite_cancel_token_new(respite_error *err)
{
    respite_cancel_token *token = calloc(1, sizeof *token);
    if (!token) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a cancel token");
        return NULL;
    }
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&token->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&token->lock, NULL);
    atomic_init(&token->refs, 1);
    atomic_init(&token->cancelled, 0);
    return token;
}

respite_cancel_token *respite_cancel_token_retain(respite_cancel_token *token)
{
    if (token)
        atomic_fetch_add_explicit(&token->refs, 1, memory_order_relaxed);
    return token;
}

void respite_cancel_token_free(respite_cancel_token *token)
{
    if (!token || atomic_fetch_sub_explicit(&token->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_cond_destroy(&token->wake);
    pthread_mutex_destroy(&token->lock);
    free(token);
}

int respite_cancel_token_cancel(respite_cancel_token *token, respite_error *err)
{
    if (!token)
        return respite_closed(RESPITE_HANDLE_CANCEL_TOKEN, err);
    pthread_mutex_lock(&token->lock);
    atomic_store_explicit(&token->cancelled, 1, memory_order_release);
    for (respite_cancel_waiter *w = token->transfers; w; w = w->next)
        curl_multi_wakeup(w->multi);
    pthread_cond_broadcast(&token->wake);
    pthread_mutex_unlock(&token->lock);
    return RESPITE_OK;
}

int respite_cancel_token_cancelled(const respite_cancel_token *token)
{
    return token ? atomic_load_explicit(&token->cancelled, memory_order_acquire) : 0;
}

void respite_cancel_attach(respite_cancel_token *token, respite_cancel_waiter *waiter)
{
    pthread_mutex_lock(&token->lock);
    waiter->next = token->transfers;
    token->transfers = waiter;
    pthread_mutex_unlock(&token->lock);
}

void respite_cancel_detach(respite_cancel_token *token, respite_cancel_waiter *waiter)
{
    pthread_mutex_lock(&token->lock);
    for (respite_cancel_waiter **at = &token->transfers; *at; at = &(*at)->next) {
        if (*at == waiter) {
            *at = waiter->next;
            break;
        }
    }
    pthread_mutex_unlock(&token->lock);
}

int respite_cancel_sleep(respite_cancel_token *token, double seconds)
{
    if (!token) {
        respite_http_sleep(seconds);
        return 0;
    }
    struct timespec until = respite_http_deadline_in(seconds);
    pthread_mutex_lock(&token->lock);
    int rc = 0;
    while (!atomic_load_explicit(&token->cancelled, memory_order_relaxed) && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&token->wake, &token->lock, &until);
    pthread_mutex_unlock(&token->lock);
    return respite_cancel_token_cancelled(token);
}

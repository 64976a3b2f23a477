/* A client's connections (C7): idle transfer handles, each keeping its
 * connections open, and the DNS and TLS session caches they share. A pool
 * belongs to the process that made it (C11): a client forked into a child
 * makes a pool of its own there and never touches the parent's (its locks
 * may have been held by a thread the child does not have, and closing its
 * TLS connections would end the parent's sessions). */
#include "http_internal.h"

#include <pthread.h>
#include <stdlib.h>

struct respite_client_pool {
    unsigned fork_generation;
    CURLSH *share;
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    pthread_mutex_t lock;
    respite_client_handle *idle;
    size_t idle_count;
    size_t idle_cap;
};

static void handle_cleanup(respite_client_handle h)
{
    if (h.multi)
        curl_multi_cleanup(h.multi);
    if (h.easy)
        curl_easy_cleanup(h.easy);
}

static void share_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *user)
{
    (void)easy;
    (void)access;
    respite_client_pool *p = user;
    pthread_mutex_lock(&p->share_locks[data]);
}

static void share_unlock(CURL *easy, curl_lock_data data, void *user)
{
    (void)easy;
    respite_client_pool *p = user;
    pthread_mutex_unlock(&p->share_locks[data]);
}

respite_client_pool *respite_client_pool_new(void)
{
    respite_client_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->fork_generation = respite_http_fork_generation();
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&p->share_locks[i], NULL);
    pthread_mutex_init(&p->lock, NULL);
    p->share = curl_share_init();
    if (!p->share) {
        respite_client_pool_free(p);
        return NULL;
    }
    curl_share_setopt(p->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(p->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(p->share, CURLSHOPT_USERDATA, p);
    curl_share_setopt(p->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(p->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return p;
}

void respite_client_pool_free(respite_client_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->idle_count; i++)
        handle_cleanup(p->idle[i]);
    free(p->idle);
    if (p->share)
        curl_share_cleanup(p->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&p->share_locks[i]);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

int respite_client_pool_here(const respite_client_pool *p)
{
    return p->fork_generation == respite_http_fork_generation();
}

CURLSH *respite_client_pool_share(respite_client_pool *p)
{
    return p->share;
}

int respite_client_pool_take(respite_client_pool *p, respite_client_handle *out)
{
    int found = 0;
    pthread_mutex_lock(&p->lock);
    if (p->idle_count > 0) {
        *out = p->idle[--p->idle_count];
        found = 1;
    }
    pthread_mutex_unlock(&p->lock);
    if (found)
        return 1;
    out->easy = curl_easy_init();
    out->multi = curl_multi_init();
    if (out->easy && out->multi)
        return 1;
    handle_cleanup(*out);
    return 0;
}

void respite_client_pool_give(respite_client_pool *p, respite_client_handle h)
{
    pthread_mutex_lock(&p->lock);
    if (p->idle_count == p->idle_cap) {
        size_t cap = p->idle_cap ? p->idle_cap * 2 : 4;
        respite_client_handle *grown = realloc(p->idle, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&p->lock);
            handle_cleanup(h);
            return;
        }
        p->idle = grown;
        p->idle_cap = cap;
    }
    p->idle[p->idle_count++] = h;
    pthread_mutex_unlock(&p->lock);
}

/* Stripe numbers per thread: taken on a thread's first counted operation,
 * given back by a pthread key destructor when it exits, so long-running
 * programs that start many short threads keep finding free stripes. A
 * stripe number's next owner takes it under stripes_lock, after the last
 * owner gave it back under the same lock, so it sees every plain store the
 * last owner made to its stripes. */
#include "striped_counter.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

_Thread_local int respite_thread_stripe_ __attribute__((tls_model("initial-exec"))) = -1;

static pthread_mutex_t stripes_lock = PTHREAD_MUTEX_INITIALIZER;
static bool stripe_taken[RESPITE_STRIPES];
static pthread_key_t stripe_key;
static pthread_once_t stripe_key_once = PTHREAD_ONCE_INIT;
static bool stripe_key_ok;

static void release_stripe(void *value)
{
    int stripe = (int)(intptr_t)value - 1;
    pthread_mutex_lock(&stripes_lock);
    if (stripe >= 0 && stripe < RESPITE_STRIPES)
        stripe_taken[stripe] = false;
    pthread_mutex_unlock(&stripes_lock);
    /* A later destructor that counts again takes a stripe again. */
    respite_thread_stripe_ = -1;
}

static void make_key(void)
{
    stripe_key_ok = pthread_key_create(&stripe_key, release_stripe) == 0;
}

static int assign_stripe_number(void)
{
    pthread_once(&stripe_key_once, make_key);
    int stripe = RESPITE_STRIPES;
    if (stripe_key_ok) {
        pthread_mutex_lock(&stripes_lock);
        for (int i = 0; i < RESPITE_STRIPES; i++) {
            if (!stripe_taken[i]) {
                stripe_taken[i] = true;
                stripe = i;
                break;
            }
        }
        pthread_mutex_unlock(&stripes_lock);
        if (stripe < RESPITE_STRIPES && pthread_setspecific(stripe_key, (void *)(intptr_t)(stripe + 1)) != 0) {
            release_stripe((void *)(intptr_t)(stripe + 1));
            stripe = RESPITE_STRIPES;
        }
    }
    respite_thread_stripe_ = stripe;
    return stripe;
}

void respite_striped_add_slow(respite_striped_counters *c, int field, int64_t n)
{
    int s = respite_thread_stripe_ >= 0 ? respite_thread_stripe_ : assign_stripe_number();
    if (s < RESPITE_STRIPES) {
        respite_stripe *own = atomic_load_explicit(&c->stripe[s], memory_order_relaxed);
        if (!own) {
            own = aligned_alloc(RESPITE_CACHE_LINE, sizeof *own);
            if (own) {
                for (int f = 0; f < RESPITE_STRIPE_FIELDS; f++)
                    atomic_init(&own->field[f], 0);
                atomic_store_explicit(&c->stripe[s], own, memory_order_release); /* readers see zeros */
            }
        }
        if (own) {
            _Atomic int64_t *cell = &own->field[field];
            atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + n, memory_order_relaxed);
            return;
        }
    }
    /* No stripe of its own (more threads than stripes, or out of memory):
     * still exact, with a locked add. */
    atomic_fetch_add_explicit(&c->shared[field], n, memory_order_relaxed);
}

respite_stripe *respite_striped_add_block(respite_striped_counters *c)
{
    respite_stripe *block = aligned_alloc(RESPITE_CACHE_LINE, sizeof *block);
    if (!block)
        return NULL;
    for (int f = 0; f < RESPITE_STRIPE_FIELDS; f++)
        atomic_init(&block->field[f], 0);
    block->next = atomic_load_explicit(&c->blocks, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&c->blocks, &block->next, block, memory_order_release,
                                                  memory_order_relaxed))
        ;
    return block;
}

int64_t respite_striped_sum(const respite_striped_counters *c, int field)
{
    int64_t sum = atomic_load_explicit(&c->shared[field], memory_order_relaxed);
    for (const respite_stripe *b = atomic_load_explicit(&c->blocks, memory_order_acquire); b; b = b->next)
        sum += atomic_load_explicit(&b->field[field], memory_order_relaxed);
    for (int s = 0; s < RESPITE_STRIPES; s++) {
        const respite_stripe *stripe = atomic_load_explicit(&c->stripe[s], memory_order_acquire);
        if (stripe)
            sum += atomic_load_explicit(&stripe->field[field], memory_order_relaxed);
    }
    return sum;
}

void respite_striped_init(respite_striped_counters *c)
{
    for (int s = 0; s < RESPITE_STRIPES; s++)
        atomic_init(&c->stripe[s], NULL);
    for (int f = 0; f < RESPITE_STRIPE_FIELDS; f++)
        atomic_init(&c->shared[f], 0);
    atomic_init(&c->blocks, NULL);
}

void respite_striped_destroy(respite_striped_counters *c)
{
    for (int s = 0; s < RESPITE_STRIPES; s++) {
        free(atomic_load_explicit(&c->stripe[s], memory_order_acquire));
        atomic_store_explicit(&c->stripe[s], NULL, memory_order_relaxed);
    }
    respite_stripe *b = atomic_exchange_explicit(&c->blocks, NULL, memory_order_acquire);
    while (b) {
        respite_stripe *next = b->next;
        free(b);
        b = next;
    }
}

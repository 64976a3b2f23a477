/* Stripe numbers per thread: taken on a thread's first counted operation,
 * given back by a pthread key destructor when it exits, so long-running
 * programs that start many short threads keep finding free stripes. */
#include "striped_counter.h"

#include <pthread.h>
#include <stdbool.h>

_Thread_local int respite_thread_stripe_ = -1;

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

int respite_thread_stripe_assign(void)
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

int64_t respite_striped_sum(const respite_striped_counters *c, int field)
{
    int64_t sum = 0;
    for (int s = 0; s <= RESPITE_STRIPES; s++)
        sum += atomic_load_explicit(&c->stripe[s].field[field], memory_order_relaxed);
    return sum;
}

void respite_striped_init(respite_striped_counters *c)
{
    for (int s = 0; s <= RESPITE_STRIPES; s++)
        for (int f = 0; f < RESPITE_STRIPE_FIELDS; f++)
            atomic_init(&c->stripe[s].field[f], 0);
}

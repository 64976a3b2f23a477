/* The delivery queue (spec section 4: D3-D6, D9 and the Q rules).
 * tests/unit/test_durable_queue.c includes this file with
 * QUEUE_TESTS_ON_FILE defined: every queue_of() queue is then durable, on a
 * new file in queue_dir (L1: the same checks hold on a file). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../support/test_support.h"
#include "respite.h"
#include "../../core/src/internal.h" /* respite_queue_interrupt */

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RESPITE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RESPITE_SANITIZED 1
#endif
#if defined(__GLIBC__) && !defined(RESPITE_SANITIZED)
#include <malloc.h>
#define HEAP_IN_USE() ((int64_t)mallinfo2().uordblks)
#else
#define HEAP_IN_USE() ((int64_t)0) /* sanitizers replace malloc; live_bytes still checks */
#endif

/* ------------------------------------------------------------- helpers */

static respite_policy *policy_of(int capacity, int retry_times, int ttl)
{
    char json[512];
    char extra[128] = "";
    size_t used = 0;
    if (retry_times)
        used += (size_t)snprintf(extra + used, sizeof extra - used, ",\"retry_times\":%d", retry_times);
    if (ttl)
        used += (size_t)snprintf(extra + used, sizeof extra - used, ",\"event_ttl\":%d", ttl);
    snprintf(json, sizeof json,
             "{\"name\":\"test\",\"maximum_capacity\":%d,\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"%s\"}]%s}",
             capacity, retry_times ? "retry" : "discard", extra);
    return policy_from(json);
}

#ifdef QUEUE_TESTS_ON_FILE
static char queue_dir[256]; /* made by the durable test's setup */
static int queue_files;
#endif

/* A queue with capacity/retry/ttl and optional overflow ("drop_newest") and max_bytes. */
static respite_queue *queue_of(int capacity, int retry_times, int ttl, const char *overflow, int64_t max_bytes)
{
    respite_error err;
    respite_error_clear(&err);
    respite_policy *p = policy_of(capacity, retry_times, ttl);
    respite_settings *s = respite_settings_new("queue", &err);
    assert_non_null(s);
    if (overflow)
        assert_int_equal(respite_settings_set_text(s, "overflow", overflow, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_integer(s, "max_bytes", max_bytes, &err), RESPITE_OK);
#ifdef QUEUE_TESTS_ON_FILE
    char path[320];
    snprintf(path, sizeof path, "%s/queue-%d.db", queue_dir, ++queue_files);
    assert_int_equal(respite_settings_set_text(s, "queue_path", path, &err), RESPITE_OK);
#endif
    respite_queue *q = respite_queue_new(p, s, &err);
    if (!q)
        fail_msg("queue: %s", err.message);
    respite_settings_free(s);
    respite_policy_free(p); /* the queue copied what it needs */
    return q;
}

static int put(respite_queue *q, const char *text, double now)
{
    return respite_queue_enqueue(q, text, strlen(text), now, NULL);
}

static void assert_balanced(respite_queue *q)
{
    respite_error err;
    respite_error_clear(&err);
    if (respite_queue_check_accounting(q, &err) != RESPITE_OK)
        fail_msg("%s", err.message);
}

static respite_queue_stats stats_of(respite_queue *q)
{
    respite_queue_stats s;
    assert_int_equal(respite_queue_stats_get(q, &s, NULL), RESPITE_OK);
    assert_true(respite_queue_stats_balanced(&s));
    return s;
}

/* Takes everything pending and returns the texts joined by ','. */
static void drain_texts(respite_queue *q, double now, char *out, size_t size)
{
    out[0] = '\0';
    respite_batch *b = respite_queue_take(q, 1000000, now, NULL);
    if (!b)
        return;
    for (int i = 0; i < respite_batch_count(b); i++) {
        if (i)
            strncat(out, ",", size - strlen(out) - 1);
        strncat(out, respite_batch_event_text(b, i, NULL), size - strlen(out) - 1);
    }
    assert_int_equal(respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL), respite_batch_count(b));
    respite_batch_free(b);
}

/* ------------------------------------------------------------------- D4 */

static void test_D4_retried_batch_goes_back_to_head_in_order(void **state)
{
    (void)state;
    respite_queue *q = queue_of(100, 5, 0, NULL, 0);
    const char *names[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(put(q, names[i], 0), RESPITE_OK);
    respite_batch *b = respite_queue_take(q, 2, 1, NULL);
    assert_int_equal(respite_batch_count(b), 2);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "a");
    assert_string_equal(respite_batch_event_text(b, 1, NULL), "b");
    /* Newer events arrive while the batch is out. */
    assert_int_equal(put(q, "e", 1), RESPITE_OK);
    assert_int_equal(respite_batch_settle(b, 0, RESPITE_DISPOSITION_RETRY, NULL), RESPITE_DISPOSITION_RETRY);
    assert_int_equal(respite_batch_settle(b, 1, RESPITE_DISPOSITION_RETRY, NULL), RESPITE_DISPOSITION_RETRY);
    /* Held with the batch until it is freed: still in flight, still readable. */
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.pending, 3);
    assert_string_equal(respite_batch_event_text(b, 1, NULL), "b");
    respite_batch_free(b);
    s = stats_of(q);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.pending, 5);
    assert_int_equal(s.retried, 2);

    respite_batch *again = respite_queue_take(q, 10, 2, NULL);
    assert_int_equal(respite_batch_count(again), 5);
    const char *order[] = {"a", "b", "c", "d", "e"};
    const int attempts[] = {2, 2, 1, 1, 1};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(respite_batch_event_text(again, i, NULL), order[i]);
        assert_int_equal(respite_batch_event_attempts(again, i, NULL), attempts[i]);
    }
    respite_batch_settle_all(again, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_free(again);
    assert_balanced(q);
    respite_queue_free(q);
}

static void test_D4_only_retried_events_return_keeping_order(void **state)
{
    (void)state;
    respite_queue *q = queue_of(100, 5, 0, NULL, 0);
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        put(q, names[i], 0);
    respite_batch *b = respite_queue_take(q, 4, 0, NULL);
    /* Settled out of order: d retry, a delivered, c retry, b discarded. */
    respite_batch_settle(b, 3, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_settle(b, 0, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_settle(b, 2, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_settle(b, 1, RESPITE_DISPOSITION_DISCARDED, NULL);
    respite_batch_free(b);
    char texts[64];
    drain_texts(q, 0, texts, sizeof texts);
    assert_string_equal(texts, "c,d,e");
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.delivered, 4);
    assert_int_equal(s.discarded, 1);
    respite_queue_free(q);
}

static void test_D4_freed_batch_returns_unsettled_events_without_an_attempt(void **state)
{
    (void)state;
    respite_queue *q = queue_of(100, 1, 0, NULL, 0);
    put(q, "a", 0);
    put(q, "b", 0);
    put(q, "c", 0);
    respite_batch *b = respite_queue_take(q, 2, 0, NULL);
    respite_batch_settle(b, 0, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_free(b); /* b never settled: back too, its attempt undone */
    respite_batch *again = respite_queue_take(q, 3, 0, NULL);
    assert_string_equal(respite_batch_event_text(again, 0, NULL), "a");
    assert_int_equal(respite_batch_event_attempts(again, 0, NULL), 2);
    assert_string_equal(respite_batch_event_text(again, 1, NULL), "b");
    assert_int_equal(respite_batch_event_attempts(again, 1, NULL), 1);
    assert_string_equal(respite_batch_event_text(again, 2, NULL), "c");
    respite_batch_free(again);
    assert_balanced(q);
    respite_queue_free(q);
}

/* ------------------------------------------------------------------- D3 */

static void test_D3_retry_times_3_gives_4_attempts_then_retries_exhausted(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 3, 0, NULL, 0);
    put(q, "x", 0);
    for (int attempt = 1; attempt <= 4; attempt++) {
        respite_batch *b = respite_queue_take(q, 1, attempt, NULL);
        assert_non_null(b);
        assert_int_equal(respite_batch_event_attempts(b, 0, NULL), attempt);
        int applied = respite_batch_settle(b, 0, RESPITE_DISPOSITION_RETRY, NULL);
        assert_int_equal(applied, attempt < 4 ? RESPITE_DISPOSITION_RETRY : RESPITE_DISPOSITION_RETRIES_EXHAUSTED);
        assert_int_equal(respite_batch_event_disposition(b, 0, NULL), applied);
        respite_batch_free(b);
        assert_balanced(q);
    }
    assert_null(respite_queue_take(q, 1, 5, NULL));
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.retries_exhausted, 1);
    assert_int_equal(s.retried, 3);
    assert_int_equal(s.pending, 0);
    respite_queue_free(q);
}

static void test_D3_no_retry_policy_exhausts_on_first_retry(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    put(q, "x", 0);
    respite_batch *b = respite_queue_take(q, 1, 0, NULL);
    assert_int_equal(respite_batch_settle(b, 0, RESPITE_DISPOSITION_RETRY, NULL),
                     RESPITE_DISPOSITION_RETRIES_EXHAUSTED);
    respite_batch_free(b);
    assert_int_equal(stats_of(q).retries_exhausted, 1);
    respite_queue_free(q);
}

/* ------------------------------------------------------------------- D5 */

static void test_D5_drop_oldest_evicts_head(void **state)
{
    (void)state;
    respite_queue *q = queue_of(3, 0, 0, NULL, 0);
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(put(q, names[i], 0), RESPITE_OK);
        assert_balanced(q);
    }
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted, 5);
    assert_int_equal(s.dropped_capacity, 2);
    assert_int_equal(s.pending, 3);
    assert_int_equal(s.refused_full, 0);
    char texts[64];
    drain_texts(q, 0, texts, sizeof texts);
    assert_string_equal(texts, "c,d,e");
    respite_queue_free(q);
}

static void test_D5_drop_newest_refuses_with_queue_full(void **state)
{
    (void)state;
    respite_queue *q = queue_of(3, 0, 0, "drop_newest", 0);
    const char *names[] = {"a", "b", "c", "d", "e"};
    respite_error err;
    for (int i = 0; i < 5; i++) {
        respite_error_clear(&err);
        int status = respite_queue_enqueue(q, names[i], 1, 0, &err);
        assert_int_equal(status, i < 3 ? RESPITE_OK : RESPITE_E_QUEUE_FULL);
        if (i >= 3)
            assert_string_equal(err.message, "the queue is full (3 events, maximum_capacity 3); overflow "
                                             "drop_newest refuses new events");
    }
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted, 3);
    assert_int_equal(s.refused_full, 2);
    assert_int_equal(s.dropped_capacity, 0);
    char texts[64];
    drain_texts(q, 0, texts, sizeof texts);
    assert_string_equal(texts, "a,b,c");
    respite_queue_free(q);
}

static void test_D5_in_flight_events_do_not_count(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        respite_queue *q = queue_of(2, 2, 0, mode ? "drop_newest" : "drop_oldest", 0);
        put(q, "a", 0);
        put(q, "b", 0);
        respite_batch *b = respite_queue_take(q, 2, 0, NULL);
        assert_int_equal(put(q, "c", 0), RESPITE_OK);
        assert_int_equal(put(q, "d", 0), RESPITE_OK);
        respite_queue_stats s = stats_of(q);
        assert_int_equal(s.dropped_capacity + s.refused_full, 0);
        assert_int_equal(s.in_flight, 2);
        assert_int_equal(s.pending, 2);
        /* Q4: retries come back even above capacity... */
        respite_batch_settle_all(b, RESPITE_DISPOSITION_RETRY, NULL);
        respite_batch_free(b);
        assert_int_equal(stats_of(q).pending, 4);
        /* ...and the next enqueue restores the bound. */
        int status = put(q, "e", 0);
        char texts[64];
        drain_texts(q, 0, texts, sizeof texts);
        if (mode) {
            assert_int_equal(status, RESPITE_E_QUEUE_FULL);
            assert_string_equal(texts, "a,b,c,d");
        } else {
            assert_int_equal(status, RESPITE_OK);
            assert_string_equal(texts, "d,e");
            assert_int_equal(stats_of(q).dropped_capacity, 3);
        }
        assert_balanced(q);
        respite_queue_free(q);
    }
}

static void test_D5_astarte_capacity_100_with_150_events_drops_oldest_50(void **state)
{
    (void)state;
    respite_queue *q = queue_of(100, 0, 0, NULL, 0);
    char text[16];
    for (int i = 0; i < 150; i++) {
        snprintf(text, sizeof text, "%d", i);
        assert_int_equal(put(q, text, i * 0.01), RESPITE_OK);
    }
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.dropped_capacity, 50);
    assert_int_equal(s.pending, 100);
    respite_batch *b = respite_queue_take(q, 1000, 2, NULL);
    assert_int_equal(respite_batch_count(b), 100);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "50");
    assert_string_equal(respite_batch_event_text(b, 99, NULL), "149");
    respite_batch_free(b);
    respite_queue_free(q);
}

static void test_D5_byte_limit_refuses_too_large_and_evicts_or_refuses(void **state)
{
    (void)state;
    respite_error err;
    /* drop_oldest: eviction by bytes */
    respite_queue *q = queue_of(100, 0, 0, NULL, 10);
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(q, "01234567890", 11, 0, &err), RESPITE_E_TOO_LARGE);
    assert_string_equal(err.message, "an event of 11 bytes is larger than max_bytes (10 bytes)");
    assert_int_equal(put(q, "0123456789", 0), RESPITE_OK); /* exactly max_bytes fits */
    assert_int_equal(put(q, "aaaa", 0), RESPITE_OK);       /* evicts the 10-byte event */
    assert_int_equal(put(q, "bbbb", 0), RESPITE_OK);
    assert_int_equal(put(q, "cccc", 0), RESPITE_OK); /* 12 > 10: evicts aaaa */
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.refused_too_large, 1);
    assert_int_equal(s.dropped_capacity, 2);
    assert_int_equal(s.pending_bytes, 8);
    assert_int_equal(s.accepted, 4);
    char texts[64];
    drain_texts(q, 0, texts, sizeof texts);
    assert_string_equal(texts, "bbbb,cccc");
    respite_queue_free(q);

    /* drop_newest: refusal by bytes */
    q = queue_of(100, 0, 0, "drop_newest", 10);
    assert_int_equal(put(q, "aaaa", 0), RESPITE_OK);
    assert_int_equal(put(q, "bbbb", 0), RESPITE_OK);
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(q, "cccc", 4, 0, &err), RESPITE_E_QUEUE_FULL);
    assert_string_equal(err.message, "the queue is full (8 bytes queued, an event of 4 bytes, max_bytes 10); "
                                     "overflow drop_newest refuses new events");
    assert_int_equal(put(q, "dd", 0), RESPITE_OK); /* 10 fits */
    s = stats_of(q);
    assert_int_equal(s.refused_full, 1);
    assert_int_equal(s.pending_bytes, 10);
    respite_queue_free(q);
}

/* ------------------------------------------------------------------- D6 */

static void test_D6_ttl_boundary_age_equal_to_ttl_drops(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 10, NULL, 0);
    put(q, "young", 0.5);
    put(q, "old", 0.0);      /* time never goes back: queued at 0.5 too */
    put(q, "later", 1.0);
    respite_batch *b = respite_queue_take(q, 1, 10.49, NULL); /* age 9.99 < 10: sent */
    assert_non_null(b);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "young");
    assert_true(fabs(respite_batch_event_age(b, 0, 10.49, NULL) - 9.99) < 1e-9);
    respite_batch_free(b); /* back to the head */
    assert_int_equal(respite_queue_expire(q, 10.49, NULL), 0);
    assert_int_equal(respite_queue_expire(q, 10.5, NULL), 2); /* age == 10: dropped */
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.expired, 2);
    assert_int_equal(s.pending, 1);
    b = respite_queue_take(q, 5, 11.0, NULL); /* "later" reaches 10 at 11.0 */
    assert_null(b);
    assert_int_equal(stats_of(q).expired, 3);
    respite_queue_free(q);
}

static void test_D6_retried_event_keeps_first_queued_time(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 5, 10, NULL, 0);
    put(q, "x", 0);
    respite_batch *b = respite_queue_take(q, 1, 5, NULL);
    respite_batch_settle(b, 0, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_free(b);
    assert_int_equal(stats_of(q).pending, 1);
    assert_null(respite_queue_take(q, 1, 10, NULL)); /* 10 s since first queued */
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.expired, 1);
    assert_int_equal(s.retries_exhausted, 0);
    respite_queue_free(q);
}

static void test_D6_astarte_ttl_10_event_still_queued_at_10s_is_dropped(void **state)
{
    (void)state;
    respite_queue *q = queue_of(100, 0, 10, NULL, 0);
    put(q, "e1", 0);
    put(q, "e2", 3);
    assert_int_equal(respite_queue_expire(q, 9.999, NULL), 0);
    assert_int_equal(respite_queue_expire(q, 10, NULL), 1);
    respite_batch *b = respite_queue_take(q, 10, 10, NULL);
    assert_int_equal(respite_batch_count(b), 1);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "e2");
    respite_batch_free(b);
    respite_queue_free(q);
}

static void test_D6_expiry_after_batches_settled_out_of_order(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 5, 10, NULL, 0);
    put(q, "old", 0);
    put(q, "new", 5);
    respite_batch *first = respite_queue_take(q, 1, 6, NULL);
    respite_batch *second = respite_queue_take(q, 1, 6, NULL);
    respite_batch_settle(first, 0, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_settle(second, 0, RESPITE_DISPOSITION_RETRY, NULL); /* "new" ahead of "old" now */
    respite_batch_free(first);
    respite_batch_free(second);
    assert_int_equal(respite_queue_expire(q, 10, NULL), 1); /* "old" behind a younger head */
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.expired, 1);
    assert_int_equal(s.pending, 1);
    respite_batch *b = respite_queue_take(q, 5, 10, NULL);
    assert_int_equal(respite_batch_count(b), 1);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "new");
    respite_batch_free(b);
    respite_queue_free(q);
}

/* D6: a take drops the expired events it meets on its way (counted once
 * each), stops at max_events, and gives no batch when every one had expired. */
static void test_D6_take_drops_the_expired_events_it_meets(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 5, 10, NULL, 0);
    put(q, "a", 0);
    put(q, "b", 1);
    put(q, "cc", 5);
    put(q, "dd", 6);
    put(q, "eee", 7);
    respite_batch *b = respite_queue_take(q, 2, 11, NULL); /* a and b are 10 s old or more */
    assert_non_null(b);
    assert_int_equal(respite_batch_count(b), 2);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "cc");
    assert_string_equal(respite_batch_event_text(b, 1, NULL), "dd");
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.expired, 2);
    assert_int_equal(s.pending, 1);
    assert_int_equal(s.pending_bytes, 3);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.in_flight_bytes, 4);
    assert_int_equal(respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL), 2);
    respite_batch_free(b);
    assert_null(respite_queue_take(q, 5, 17, NULL)); /* eee is 10 s old */
    s = stats_of(q);
    assert_int_equal(s.expired, 3);
    assert_int_equal(s.delivered, 2);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.pending_bytes, 0);
    assert_int_equal(s.in_flight, 0);
    assert_balanced(q);
    respite_queue_free(q);
}

static void test_D6_expired_events_inside_a_batch_are_skipped(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 5, 10, NULL, 0);
    put(q, "a", 0);
    put(q, "b", 0);
    respite_batch *b1 = respite_queue_take(q, 1, 0, NULL); /* a */
    respite_batch *b2 = respite_queue_take(q, 1, 6, NULL); /* b */
    put(q, "c", 6);
    /* Requeue out of age order: a (queued 0) ends up behind b. */
    respite_batch_settle(b1, 0, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_settle(b2, 0, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_free(b1);
    respite_batch_free(b2);
    char texts[64];
    drain_texts(q, 10, texts, sizeof texts); /* a and b are 10 s old */
    assert_string_equal(texts, "c");
    assert_int_equal(stats_of(q).expired, 2);
    respite_queue_free(q);
}

/* ------------------------------------------------------------------- D9 */

static void test_D9_accounting_balances_through_a_long_mixed_run(void **state)
{
    (void)state;
    respite_queue *q = queue_of(50, 2, 5, NULL, 600);
    uint64_t x = 12345;
    char text[64];
    double now = 0;
    for (int step = 0; step < 20000; step++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        now += (double)(x % 1000) / 1000.0;
        int op = (int)(x % 7);
        if (op <= 3) {
            size_t n = (size_t)(x >> 20) % 40 + 1;
            memset(text, 'x', n);
            respite_queue_enqueue(q, text, n, now, NULL);
        } else if (op <= 5) {
            respite_batch *b = respite_queue_take(q, (int)(x >> 30) % 8 + 1, now, NULL);
            assert_balanced(q);
            for (int i = 0; i < respite_batch_count(b); i++)
                if ((x >> (i + 3)) % 4)
                    respite_batch_settle(b, i, (int)((x >> (i + 7)) % 4), NULL);
            assert_balanced(q);
            respite_batch_free(b);
        } else {
            respite_queue_expire(q, now, NULL);
        }
        assert_balanced(q);
    }
    respite_queue_stats s = stats_of(q);
    print_message("accepted %lld delivered %lld dropped %lld expired %lld exhausted %lld discarded %lld retried %lld\n",
                  (long long)s.accepted, (long long)s.delivered, (long long)s.dropped_capacity, (long long)s.expired,
                  (long long)s.retries_exhausted, (long long)s.discarded, (long long)s.retried);
    assert_true(s.accepted > 0 && s.delivered > 0 && s.expired > 0 && s.dropped_capacity > 0 &&
                s.retries_exhausted > 0 && s.discarded > 0 && s.retried > 0);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.in_flight_bytes, 0);
    assert_true(s.pending_bytes <= 600);
    respite_queue_free(q);
}

static void test_D9_refusals_are_counted_apart(void **state)
{
    (void)state;
    respite_queue *q = queue_of(1, 0, 0, "drop_newest", 4);
    put(q, "a", 0);
    put(q, "b", 0);        /* full */
    put(q, "toolarge", 0); /* too large */
    respite_queue_close(q, NULL);
    assert_int_equal(put(q, "c", 0), RESPITE_E_CLOSED);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted, 1);
    assert_int_equal(s.refused_full, 1);
    assert_int_equal(s.refused_too_large, 1);
    assert_int_equal(s.refused_closed, 1);
    assert_int_equal(s.closed, 1);
    /* A snapshot that does not balance is reported. */
    s.delivered++;
    assert_false(respite_queue_stats_balanced(&s));
    assert_false(respite_queue_stats_balanced(NULL));
    respite_queue_free(q);
}

#ifndef QUEUE_TESTS_ON_FILE
/* D9 + Q7: a million events through a capacity-1000 queue keep memory flat. */
static void test_D9_memory_stays_flat_for_a_million_events(void **state)
{
    (void)state;
    respite_queue *q = queue_of(1000, 0, 0, NULL, 0);
    char text[32];
    int64_t most_live = 0;
    int64_t heap_after_warmup = 0;
    for (int i = 0; i < 1000000; i++) {
        int n = snprintf(text, sizeof text, "event-%d", i);
        assert_int_equal(respite_queue_enqueue(q, text, (size_t)n, 0, NULL), RESPITE_OK);
        if (i == 9999)
            heap_after_warmup = HEAP_IN_USE();
        if (i % 1000 == 999) {
            respite_queue_stats s = stats_of(q);
            if (s.live_bytes > most_live)
                most_live = s.live_bytes;
        }
    }
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.pending, 1000);
    assert_int_equal(s.dropped_capacity, 999000);
    /* 1000 events of at most 13 bytes plus a small header each. */
    assert_true(most_live <= 1000 * (13 + 1 + 64));
    assert_true(most_live >= 1000 * 13);
    /* The process heap too: 990,000 more events added at most a little. */
    int64_t growth = HEAP_IN_USE() - heap_after_warmup;
    print_message("heap growth over 990000 enqueues: %lld bytes\n", (long long)growth);
    assert_true(growth < 64 * 1024);
    respite_queue_free(q);
}
#endif

/* ------------------------------------------------------- Q: bad input */

static void test_Q1_null_queue_is_closed(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(NULL, "a", 1, 0, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "queue is closed");
    assert_null(respite_queue_take(NULL, 1, 0, &err));
    assert_int_equal(respite_queue_pending(NULL, &err), -1);
    assert_int_equal(respite_queue_expire(NULL, 0, &err), -1);
    assert_int_equal(respite_queue_close(NULL, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_queue_is_closed(NULL, &err), -1);
    assert_int_equal(respite_queue_stats_get(NULL, NULL, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_queue_wait(NULL, 1, 0, &err), -1);
    respite_queue_free(NULL);
    respite_batch_free(NULL);
    assert_int_equal(respite_batch_count(NULL), 0);
    respite_error_clear(&err);
    assert_int_equal(respite_batch_settle(NULL, 0, 0, &err), -1);
    assert_string_equal(err.message, "batch is closed");
    assert_null(respite_batch_event_text(NULL, 0, &err));
}

static void test_Q1_closed_queue_refuses_but_drains(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    put(q, "a", 0);
    assert_int_equal(respite_queue_is_closed(q, NULL), 0);
    assert_int_equal(respite_queue_close(q, NULL), RESPITE_OK);
    assert_int_equal(respite_queue_close(q, NULL), RESPITE_OK);
    assert_int_equal(respite_queue_is_closed(q, NULL), 1);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(q, "b", 1, 0, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "queue is closed");
    char texts[16];
    drain_texts(q, 0, texts, sizeof texts);
    assert_string_equal(texts, "a");
    assert_int_equal(stats_of(q).refused_closed, 1);
    respite_queue_free(q);
}

static void test_Q2_empty_and_null_payloads_are_refused(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(q, "", 0, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "an event must have at least 1 byte (got 0 bytes)");
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(q, NULL, 3, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "data must not be NULL");
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted + s.refused_full + s.refused_too_large + s.refused_closed, 0);
    respite_queue_free(q);
}

static void test_Q3_bad_times_are_refused(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 5, NULL, 0);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(q, "a", 1, -1, &err), RESPITE_E_INVALID_TIME);
    assert_int_equal(respite_queue_enqueue(q, "a", 1, NAN, &err), RESPITE_E_INVALID_TIME);
    assert_int_equal(respite_queue_enqueue(q, "a", 1, INFINITY, &err), RESPITE_E_INVALID_TIME);
    assert_null(respite_queue_take(q, 1, -0.5, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_TIME);
    assert_int_equal(respite_queue_expire(q, NAN, &err), -1);
    /* Time going backwards is treated as the later time. */
    put(q, "a", 100);
    put(q, "b", 50);
    assert_int_equal(respite_queue_expire(q, 104.9, NULL), 0);
    assert_int_equal(respite_queue_expire(q, 105, NULL), 2);
    respite_queue_free(q);
}

static void test_Q5_batch_misuse_is_reported(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    respite_error err;
    put(q, "a", 0);
    respite_error_clear(&err);
    assert_null(respite_queue_take(q, 0, 0, &err));
    assert_string_equal(err.message, "max_events must be at least 1 (got 0)");
    respite_batch *b = respite_queue_take(q, 1, 0, NULL);
    respite_error_clear(&err);
    assert_int_equal(respite_batch_event_size(b, 1, &err), -1);
    assert_string_equal(err.message, "index must be from 0 to 0 (got 1)");
    respite_error_clear(&err);
    assert_int_equal(respite_batch_settle(b, 0, 7, &err), -1);
    assert_string_equal(err.message, "disposition must be one of delivered (0), retry (1), discarded (2), "
                                     "retries_exhausted (3) (got 7)");
    assert_int_equal(respite_batch_event_disposition(b, 0, NULL), -1);
    assert_int_equal(respite_batch_settle(b, 0, RESPITE_DISPOSITION_DELIVERED, NULL), 0);
    respite_error_clear(&err);
    assert_int_equal(respite_batch_settle(b, 0, RESPITE_DISPOSITION_DISCARDED, &err), -1);
    assert_string_equal(err.message, "event 0 of the batch is already settled (delivered)");
    assert_int_equal(respite_batch_unsettled(b), 0);
    respite_batch_free(b);
    assert_null(respite_queue_take(q, 1, 0, &err)); /* empty: NULL, no error */
    assert_int_equal(stats_of(q).delivered, 1);
    assert_string_equal(respite_disposition_name(3), "retries_exhausted");
    assert_null(respite_disposition_name(4));
    respite_queue_free(q);
}

static void test_Q5_batch_outlives_its_queue(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    put(q, "a", 0);
    put(q, "b", 0);
    respite_batch *b = respite_queue_take(q, 1, 0, NULL);
    respite_queue_free(q);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "a");
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_batch_settle(b, 0, RESPITE_DISPOSITION_DELIVERED, &err), -1);
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    assert_string_equal(err.message, "queue is closed");
    respite_batch_free(b); /* leak-free under ASan */
}

static void test_Q6_binary_payload_keeps_its_size_and_a_terminator(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    const char data[] = {'a', '\0', 'b'};
    assert_int_equal(respite_queue_enqueue(q, data, 3, 0, NULL), RESPITE_OK);
    respite_batch *b = respite_queue_take(q, 1, 0, NULL);
    assert_int_equal(respite_batch_event_size(b, 0, NULL), 3);
    const char *text = respite_batch_event_text(b, 0, NULL);
    assert_memory_equal(text, data, 3);
    assert_int_equal(text[3], '\0');
    assert_int_equal(stats_of(q).in_flight_bytes, 3);
    respite_batch_free(b);
    respite_queue_free(q);
}

static void test_Q8_settings_and_policy_defaults(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    respite_queue *q = respite_queue_new(NULL, NULL, &err); /* @default: capacity 1000, discard */
    assert_non_null(q);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.capacity, 1000);
    assert_int_equal(s.max_bytes, 0);
    assert_int_equal(s.overflow, RESPITE_OVERFLOW_DROP_OLDEST);
    assert_int_equal(s.retry_times, 0);
    respite_queue_free(q);

    respite_settings *gate = respite_settings_new("gate", NULL);
    respite_error_clear(&err);
    assert_null(respite_queue_new(NULL, gate, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "settings must be queue settings (got gate settings)");
    respite_settings_free(gate);
}

static void *late_producer(void *arg)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    put(arg, "a", 0);
    put(arg, "b", 0);
    return NULL;
}

static void *late_interrupt(void *arg)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    put(arg, "a", 0);
    respite_queue_interrupt(arg);
    return NULL;
}

/* What a sender's flush does to its thread's wait for min_entries: the
 * wait returns at once, 0 when not ready, not at its timeout. */
static void test_an_interrupt_ends_a_wait(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    pthread_t t;
    double t0 = respite_now();
    pthread_create(&t, NULL, late_interrupt, q);
    assert_int_equal(respite_queue_wait(q, 5, 30.0, NULL), 0);
    assert_true(respite_now() - t0 < 15.0);
    pthread_join(t, NULL);
    /* an interrupt before a wait began does not end it */
    assert_int_equal(respite_queue_wait(q, 1, 0.01, NULL), 1);
    double t1 = respite_now();
    assert_int_equal(respite_queue_wait(q, 2, 0.05, NULL), 0);
    assert_true(respite_now() - t1 >= 0.04);
    respite_queue_free(q);
}

static void test_Q9_wait_returns_when_enough_are_pending_or_on_timeout(void **state)
{
    (void)state;
    respite_queue *q = queue_of(10, 0, 0, NULL, 0);
    assert_int_equal(respite_queue_wait(q, 1, 0.01, NULL), 0);
    pthread_t t;
    pthread_create(&t, NULL, late_producer, q);
    assert_int_equal(respite_queue_wait(q, 2, 5.0, NULL), 1);
    pthread_join(t, NULL);
    assert_int_equal(respite_queue_pending(q, NULL), 2);
    /* The longest timeout accepted waits too, not returning 0 at once. */
    pthread_create(&t, NULL, late_producer, q);
    assert_int_equal(respite_queue_wait(q, 4, 1e9, NULL), 1);
    pthread_join(t, NULL);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_queue_wait(q, 1, -1, &err), -1);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "timeout_seconds must be a number of seconds from 0 to 1000000000 (got -1)");
    /* Never clamped: a longer or non-finite timeout and a minimum below 1 are refused (E10, E12). */
    respite_error_clear(&err);
    assert_int_equal(respite_queue_wait(q, 1, 1e300, &err), -1);
    assert_string_equal(err.message, "timeout_seconds must be a number of seconds from 0 to 1000000000 (got 1e+300)");
    respite_error_clear(&err);
    assert_int_equal(respite_queue_wait(q, 1, 3.3e9, &err), -1);
    assert_string_equal(err.message, "timeout_seconds must be a number of seconds from 0 to 1000000000 (got 3300000000)");
    respite_error_clear(&err);
    assert_int_equal(respite_queue_wait(q, 1, INFINITY, &err), -1);
    assert_string_equal(err.message, "timeout_seconds must be a number of seconds from 0 to 1000000000 (got inf)");
    respite_error_clear(&err);
    assert_int_equal(respite_queue_wait(q, 1, NAN, &err), -1);
    assert_string_equal(err.message, "timeout_seconds must be a number of seconds from 0 to 1000000000 (got nan)");
    respite_error_clear(&err);
    assert_int_equal(respite_queue_wait(q, 0, 0, &err), -1);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "min_pending must be an integer 1 or more (got 0)");
    respite_error_clear(&err);
    assert_int_equal(respite_queue_wait(q, INT64_MIN, 0, &err), -1);
    assert_string_equal(err.message, "min_pending must be an integer 1 or more (got -9223372036854775808)");
    respite_queue_close(q, NULL);
    assert_int_equal(respite_queue_wait(q, 100, 5.0, NULL), 1); /* closed: returns at once */
    respite_queue_free(q);
}

/* Q10: many events in one call, decided one by one; the first refusal stops it. */
static void test_Q10_enqueue_many_decides_each_and_stops_at_a_refusal(void **state)
{
    (void)state;
    respite_queue *q = queue_of(3, 0, 0, "drop_newest", 0);
    const size_t sizes[] = {1, 2, 3, 4, 5};
    int accepted = -1;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue_many(q, "abbcccddddeeeee", sizes, 5, 1, &accepted, &err),
                     RESPITE_E_QUEUE_FULL);
    assert_int_equal(accepted, 3);
    assert_string_equal(err.message,
                        "the queue is full (3 events, maximum_capacity 3); overflow drop_newest refuses new events");
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted, 3);
    assert_int_equal(s.refused_full, 1);
    assert_int_equal(s.pending_bytes, 6);
    respite_batch *b = respite_queue_take(q, 5, 1, NULL);
    assert_int_equal(respite_batch_count(b), 3);
    assert_string_equal(respite_batch_event_text(b, 2, NULL), "ccc");
    assert_int_equal(respite_batch_event_id(b, 2, NULL), 3);
    respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_free(b);
    /* Arguments first: an empty event refuses the call, nothing counted. */
    const size_t with_empty[] = {1, 0};
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue_many(q, "a", with_empty, 2, 2, &accepted, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "an event must have at least 1 byte (got 0 bytes for event 1)");
    assert_int_equal(accepted, 0);
    assert_int_equal(respite_queue_enqueue_many(q, NULL, NULL, 0, 2, &accepted, NULL), RESPITE_OK);
    assert_int_equal(respite_queue_enqueue_many(q, "xy", sizes, 2, 2, NULL, NULL), RESPITE_OK);
    assert_int_equal(stats_of(q).accepted, 5);
    assert_balanced(q);
    respite_queue_free(q);
}

/* Every check above; on a file all but the memory one (Q7 is about memory). */
#define QUEUE_TESTS \
    cmocka_unit_test(test_D4_retried_batch_goes_back_to_head_in_order), \
    cmocka_unit_test(test_D4_only_retried_events_return_keeping_order), \
    cmocka_unit_test(test_D4_freed_batch_returns_unsettled_events_without_an_attempt), \
    cmocka_unit_test(test_D3_retry_times_3_gives_4_attempts_then_retries_exhausted), \
    cmocka_unit_test(test_D3_no_retry_policy_exhausts_on_first_retry), \
    cmocka_unit_test(test_D5_drop_oldest_evicts_head), \
    cmocka_unit_test(test_D5_drop_newest_refuses_with_queue_full), \
    cmocka_unit_test(test_D5_in_flight_events_do_not_count), \
    cmocka_unit_test(test_D5_astarte_capacity_100_with_150_events_drops_oldest_50), \
    cmocka_unit_test(test_D5_byte_limit_refuses_too_large_and_evicts_or_refuses), \
    cmocka_unit_test(test_D6_ttl_boundary_age_equal_to_ttl_drops), \
    cmocka_unit_test(test_D6_retried_event_keeps_first_queued_time), \
    cmocka_unit_test(test_D6_astarte_ttl_10_event_still_queued_at_10s_is_dropped), \
    cmocka_unit_test(test_D6_expiry_after_batches_settled_out_of_order), \
    cmocka_unit_test(test_D6_take_drops_the_expired_events_it_meets), \
    cmocka_unit_test(test_D6_expired_events_inside_a_batch_are_skipped), \
    cmocka_unit_test(test_D9_accounting_balances_through_a_long_mixed_run), \
    cmocka_unit_test(test_D9_refusals_are_counted_apart), \
    QUEUE_MEMORY_TESTS \
    cmocka_unit_test(test_Q1_null_queue_is_closed), \
    cmocka_unit_test(test_Q1_closed_queue_refuses_but_drains), \
    cmocka_unit_test(test_Q2_empty_and_null_payloads_are_refused), \
    cmocka_unit_test(test_Q3_bad_times_are_refused), \
    cmocka_unit_test(test_Q5_batch_misuse_is_reported), \
    cmocka_unit_test(test_Q5_batch_outlives_its_queue), \
    cmocka_unit_test(test_Q6_binary_payload_keeps_its_size_and_a_terminator), \
    cmocka_unit_test(test_Q8_settings_and_policy_defaults), \
    cmocka_unit_test(test_Q9_wait_returns_when_enough_are_pending_or_on_timeout), \
    cmocka_unit_test(test_an_interrupt_ends_a_wait), \
    cmocka_unit_test(test_Q10_enqueue_many_decides_each_and_stops_at_a_refusal),
#ifdef QUEUE_TESTS_ON_FILE
#define QUEUE_MEMORY_TESTS
#else
#define QUEUE_MEMORY_TESTS cmocka_unit_test(test_D9_memory_stays_flat_for_a_million_events),
#endif

#ifndef QUEUE_TESTS_ON_FILE
int main(void)
{
    const struct CMUnitTest tests[] = {QUEUE_TESTS};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif

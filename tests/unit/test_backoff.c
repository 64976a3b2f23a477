/* Back-off (spec section 3, rules B1-B11): delays with and without jitter,
 * the counter-based generator, Retry-After hints, max_attempts, retry_on
 * and bad input. The spec's formulas are restated here independently of
 * core/src/backoff.c, so a drift between the two fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"

/* ------------------------------------------------ the spec's formulas (B6) */

static uint64_t spec_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double spec_u(uint64_t key, uint64_t sequence, uint64_t retry)
{
    uint64_t bits = spec_mix64(key ^ spec_mix64(sequence * UINT64_C(0x9E3779B97F4A7C15) + retry));
    return (double)(bits >> 11) / 9007199254740992.0;
}

static double spec_decorrelated(uint64_t key, uint64_t sequence, int k, double initial, double max)
{
    double t = (k - 1) + spec_u(key, sequence, (uint64_t)k);
    double next = pow(2, t) * tanh(sqrt(4 * t));
    double prev = 0;
    if (k > 1) {
        double tp = (k - 2) + spec_u(key, sequence, (uint64_t)(k - 1));
        prev = pow(2, tp) * tanh(sqrt(4 * tp));
    }
    return fmin((next - prev) * (1 / 1.4) * initial, max);
}

/* ---------------------------------------------------------------- helpers */

typedef struct {
    const char *name;
    const char *value;
} kv;

/* A back-off from name=value pairs ending with {NULL, NULL}. */
static respite_backoff *make(const kv *pairs)
{
    respite_error err;
    respite_error_clear(&err);
    respite_settings *s = respite_settings_new("backoff", &err);
    assert_non_null(s);
    for (const kv *p = pairs; p && p->name; p++)
        if (respite_settings_set_text(s, p->name, p->value, &err))
            fail_msg("%s=%s: %s", p->name, p->value, err.message);
    respite_backoff *b = respite_backoff_new(s, &err);
    if (!b)
        fail_msg("respite_backoff_new: %s", err.message);
    respite_settings_free(s);
    return b;
}

static double delay(const respite_backoff *b, int64_t sequence, int retry, double hint)
{
    respite_error err;
    respite_error_clear(&err);
    double d = respite_backoff_delay(b, sequence, retry, hint, &err);
    if (d < 0)
        fail_msg("delay(%lld, %d, %g): %s", (long long)sequence, retry, hint, err.message);
    return d;
}

#define assert_close(a, b) assert_true(fabs((a) - (b)) <= 1e-12 * fmax(1.0, fabs(b)))

/* ------------------------------------------------------------------ tests */

static void test_B1_max_attempts_counts_every_attempt(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"max_attempts", "3"}, {NULL, NULL}});
    assert_int_equal(respite_backoff_max_attempts(b), 3);
    int64_t seq = respite_backoff_start(b, NULL);
    assert_true(respite_backoff_next(b, seq, 1, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == 0.5);
    assert_true(respite_backoff_next(b, seq, 2, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == 1.0);
    assert_true(respite_backoff_next(b, seq, 3, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == RESPITE_RETRY_STOP);
    assert_true(respite_backoff_next(b, seq, 4, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == RESPITE_RETRY_STOP);
    respite_backoff_free(b);

    b = make((kv[]){{"max_attempts", "1"}, {NULL, NULL}});
    assert_true(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, NULL) == RESPITE_RETRY_STOP);
    respite_backoff_free(b);

    b = make((kv[]){{"max_attempts", "100"}, {"multiplier", "100"}, {NULL, NULL}});
    assert_true(respite_backoff_next(b, 0, 99, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == 30.0);
    assert_true(respite_backoff_next(b, 0, 100, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == RESPITE_RETRY_STOP);
    respite_backoff_free(b);
}

static void test_B2_exponential_without_jitter_is_capped(void **state)
{
    (void)state;
    respite_backoff *b = make(NULL); /* defaults: 0.5 s x 2, at most 30 s */
    const double expected[] = {0.5, 1, 2, 4, 8, 16, 30, 30, 30};
    for (int k = 1; k <= 9; k++)
        assert_true(delay(b, 0, k, 0) == expected[k - 1]);
    /* no jitter: every sequence gets the same delays */
    assert_true(delay(b, 12345, 3, 0) == 2.0);
    /* far beyond max_attempts the delay is still defined (and capped) */
    assert_true(delay(b, 0, 100000, 0) == 30.0);
    respite_backoff_free(b);

    b = make((kv[]){{"initial_delay_seconds", "0.3"}, {"multiplier", "1.5"}, {"max_delay_seconds", "1"},
                    {NULL, NULL}});
    assert_close(delay(b, 0, 1, 0), 0.3);
    assert_close(delay(b, 0, 2, 0), 0.3 * 1.5);
    assert_close(delay(b, 0, 3, 0), 0.3 * 1.5 * 1.5);
    assert_true(delay(b, 0, 4, 0) == 1.0); /* 1.0125 capped */
    respite_backoff_free(b);
}

/* Seed retry-backoff-polly.txt: WaitAndRetryAsync(3, n => 2^n seconds)
 * logs "Retry 1 after 2 seconds", 4, 8, then gives up: 4 attempts. */
static void test_B15_polly_exponential_2_4_8(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"max_attempts", "4"},
                                     {"initial_delay_seconds", "2"},
                                     {"multiplier", "2"},
                                     {"max_delay_seconds", "60"},
                                     {"retry_on", "transport,408,500,502,503,504"},
                                     {NULL, NULL}});
    int64_t seq = respite_backoff_start(b, NULL);
    assert_true(respite_backoff_next(b, seq, 1, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, NULL) == 2.0);
    assert_true(respite_backoff_next(b, seq, 2, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == 4.0);
    assert_true(respite_backoff_next(b, seq, 3, RESPITE_OUTCOME_SERVER_ERROR, 504, 0, NULL) == 8.0);
    assert_true(respite_backoff_next(b, seq, 4, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, NULL) == RESPITE_RETRY_STOP);
    /* that policy's list retries 408 but not 404 */
    assert_true(respite_backoff_next(b, seq, 1, RESPITE_OUTCOME_REQUEST_ERROR, 408, 0, NULL) == 2.0);
    assert_true(respite_backoff_next(b, seq, 1, RESPITE_OUTCOME_REQUEST_ERROR, 404, 0, NULL) == RESPITE_RETRY_STOP);
    respite_backoff_free(b);
}

/* Polly.Contrib's ConstantBackoff(200 ms, retryCount: 5): multiplier 1. */
static void test_B15_polly_constant(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"max_attempts", "6"},
                                     {"initial_delay_seconds", "0.2"},
                                     {"multiplier", "1"},
                                     {"max_delay_seconds", "0.2"},
                                     {NULL, NULL}});
    for (int attempt = 1; attempt <= 5; attempt++)
        assert_true(respite_backoff_next(b, 0, attempt, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == 0.2);
    assert_true(respite_backoff_next(b, 0, 6, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == RESPITE_RETRY_STOP);
    respite_backoff_free(b);
}

/* The seed's hand-written back-off waits 200 x (2^k - 1) / 2 ms capped at
 * 2000: 100, 300, 700, 1500, 2000, 2000 ... That series is not geometric, so
 * respite cannot give it (spec B15); the nearest respite schedule starts at
 * the same 100 ms, doubles, and reaches the same 2000 ms cap. */
static void test_B15_polly_seed_capped_series_nearest_schedule(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"max_attempts", "11"},
                                     {"initial_delay_seconds", "0.1"},
                                     {"multiplier", "2"},
                                     {"max_delay_seconds", "2"},
                                     {NULL, NULL}});
    const double respite_series[] = {0.1, 0.2, 0.4, 0.8, 1.6, 2, 2, 2, 2, 2};
    const double seed_series[] = {0.1, 0.3, 0.7, 1.5, 2, 2, 2, 2, 2, 2};
    for (int k = 1; k <= 10; k++) {
        double d = respite_backoff_next(b, 0, k, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL);
        assert_close(d, respite_series[k - 1]);
        if (k == 1 || k >= 6)
            assert_close(d, seed_series[k - 1]); /* first delay and cap agree */
        else
            assert_true(d < seed_series[k - 1]);
    }
    /* 10 retries then stop, as the seed's "10 retry attempts made" */
    assert_true(respite_backoff_next(b, 0, 11, RESPITE_OUTCOME_TRANSPORT, 0, 0, NULL) == RESPITE_RETRY_STOP);
    respite_backoff_free(b);
}

static void test_B3_full_jitter_range_and_formula(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"jitter", "full"}, {"seed", "7"}, {"initial_delay_seconds", "1"},
                                     {"max_delay_seconds", "5"}, {NULL, NULL}});
    for (int k = 1; k <= 5; k++) {
        double d = fmin(pow(2, k - 1), 5);
        double sum = 0, lo = INFINITY, hi = 0;
        for (int64_t seq = 0; seq < 2000; seq++) {
            double got = delay(b, seq, k, 0);
            assert_true(got >= 0 && got < d);
            assert_true(got == d * spec_u(7, (uint64_t)seq, (uint64_t)k));
            sum += got;
            lo = fmin(lo, got);
            hi = fmax(hi, got);
        }
        assert_true(fabs(sum / 2000 / d - 0.5) < 0.05); /* uniform: mean about d/2 */
        assert_true(lo < 0.02 * d && hi > 0.98 * d);    /* and it spans the range */
    }
    respite_backoff_free(b);
}

static void test_B4_equal_jitter_range_and_formula(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"jitter", "equal"}, {"seed", "7"}, {"initial_delay_seconds", "1"},
                                     {"max_delay_seconds", "5"}, {NULL, NULL}});
    for (int k = 1; k <= 5; k++) {
        double d = fmin(pow(2, k - 1), 5);
        double lo = INFINITY, hi = 0;
        for (int64_t seq = 0; seq < 2000; seq++) {
            double got = delay(b, seq, k, 0);
            assert_true(got >= d / 2 && got < d);
            assert_true(got == d / 2 + d / 2 * spec_u(7, (uint64_t)seq, (uint64_t)k));
            lo = fmin(lo, got);
            hi = fmax(hi, got);
        }
        assert_true(lo < 0.51 * d && hi > 0.99 * d);
    }
    respite_backoff_free(b);
}

static void test_B5_decorrelated_jitter_formula_range_and_cap(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"jitter", "decorrelated"}, {"seed", "99"}, {"initial_delay_seconds", "1"},
                                     {"multiplier", "3"}, {"max_delay_seconds", "20"}, {"max_attempts", "10"},
                                     {NULL, NULL}});
    double sum_first = 0;
    for (int64_t seq = 0; seq < 2000; seq++) {
        for (int k = 1; k <= 8; k++) {
            double got = delay(b, seq, k, 0);
            /* the multiplier plays no part: the formula's own base is 2 */
            assert_close(got, spec_decorrelated(99, (uint64_t)seq, k, 1, 20));
            assert_true(got >= 0 && got <= 20);
        }
        /* retry 1: t in [0, 1), so the delay is below 2 tanh(2) / 1.4 */
        double first = delay(b, seq, 1, 0);
        assert_true(first < 2 * tanh(2) / 1.4);
        sum_first += first;
    }
    /* Polly's scaling puts the typical first delay near initial_delay_seconds */
    assert_true(sum_first / 2000 > 0.6 && sum_first / 2000 < 1.2);
    /* stateless: asking for retry 5 first gives what the in-order run gives */
    double five = delay(b, 3, 5, 0);
    for (int k = 1; k <= 4; k++)
        delay(b, 3, k, 0);
    assert_true(delay(b, 3, 5, 0) == five);
    /* capped: with a 1 s cap nothing exceeds it, and later retries hit it */
    respite_backoff_free(b);
    b = make((kv[]){{"jitter", "decorrelated"}, {"seed", "99"}, {"initial_delay_seconds", "0.5"},
                    {"max_delay_seconds", "1"}, {NULL, NULL}});
    for (int64_t seq = 0; seq < 200; seq++) {
        assert_true(delay(b, seq, 6, 0) <= 1.0);
        assert_true(delay(b, seq, 8, 0) == 1.0); /* 2^7 x ... far above the cap */
    }
    assert_true(delay(b, 0, 5000, 0) == 1.0); /* 2^t overflows: still the cap */
    respite_backoff_free(b);
}

/* Golden values for seed 42 (spec section 3, "Seeded example"): any
 * language that follows the spec reproduces them. */
static void test_B6_seeded_golden_values(void **state)
{
    (void)state;
    static const struct {
        const char *jitter;
        double seq0[6], seq1[6];
    } golden[] = {
        {"none", {1, 2, 4, 8, 16, 30}, {1, 2, 4, 8, 16, 30}},
        {"full",
         {0.76035968911636831, 0.96858308146079808, 3.1143532106441141, 0.54636938450570316, 9.9781509774964796,
          13.457769704654746},
         {0.66325474434685283, 1.1311566338865429, 1.5026489051086243, 5.0400086576692127, 3.2610633643013749,
          17.900227026648402}},
        {"equal",
         {0.8801798445581841, 1.4842915407303989, 3.557176605322057, 4.2731846922528511, 12.98907548874824,
          21.728884852327372},
         {0.83162737217342642, 1.5655783169432715, 2.7513244525543121, 6.5200043288346059, 9.6305316821506874,
          23.950113513324201}},
        {"decorrelated",
         {1.138171031209094, 0.82991828633706355, 2.9207534203010965, 1.091613600482326, 11.621659509523154,
          13.58571382053255},
         {1.0473498430745174, 1.0387454588872429, 1.6053167083281776, 5.1431603349943051, 4.3209640443988766,
          21.404270972833356}},
    };
    /* the uniform draws themselves, for implementers checking step by step */
    assert_true(spec_u(42, 0, 1) == 0.76035968911636831);
    assert_true(spec_u(42, 0, 2) == 0.48429154073039904);
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        respite_backoff *b = make((kv[]){{"jitter", golden[i].jitter},
                                         {"seed", "42"},
                                         {"initial_delay_seconds", "1"},
                                         {"multiplier", "2"},
                                         {"max_delay_seconds", "30"},
                                         {"max_attempts", "10"},
                                         {NULL, NULL}});
        for (int k = 1; k <= 6; k++) {
            assert_close(delay(b, 0, k, 0), golden[i].seq0[k - 1]);
            assert_close(delay(b, 1, k, 0), golden[i].seq1[k - 1]);
        }
        respite_backoff_free(b);
    }
}

static void test_B6_same_seed_same_delays_other_seed_other_delays(void **state)
{
    (void)state;
    const char *const modes[] = {"full", "equal", "decorrelated"};
    for (int m = 0; m < 3; m++) {
        respite_backoff *a = make((kv[]){{"jitter", modes[m]}, {"seed", "12345"}, {NULL, NULL}});
        respite_backoff *b = make((kv[]){{"jitter", modes[m]}, {"seed", "12345"}, {NULL, NULL}});
        respite_backoff *c = make((kv[]){{"jitter", modes[m]}, {"seed", "12346"}, {NULL, NULL}});
        respite_backoff *os1 = make((kv[]){{"jitter", modes[m]}, {NULL, NULL}}); /* seed 0: from the OS */
        respite_backoff *os2 = make((kv[]){{"jitter", modes[m]}, {NULL, NULL}});
        int differ_c = 0, differ_os = 0, differ_seq = 0;
        for (int k = 1; k <= 3; k++) {
            for (int64_t seq = 0; seq < 20; seq++) {
                assert_true(delay(a, seq, k, 0) == delay(b, seq, k, 0));
                differ_c += delay(a, seq, k, 0) != delay(c, seq, k, 0);
                differ_os += delay(os1, seq, k, 0) != delay(os2, seq, k, 0);
                differ_seq += delay(a, seq, k, 0) != delay(a, seq + 1, k, 0);
            }
        }
        assert_true(differ_c > 50 && differ_os > 50 && differ_seq > 50);
        respite_backoff_free(a);
        respite_backoff_free(b);
        respite_backoff_free(c);
        respite_backoff_free(os1);
        respite_backoff_free(os2);
    }
}

static void test_B7_retry_after_hint_raises_the_delay_up_to_the_cap(void **state)
{
    (void)state;
    respite_backoff *b = make(NULL); /* 0.5, 1, 2 ... at most 30 */
    assert_true(delay(b, 0, 1, 0) == 0.5);
    assert_true(delay(b, 0, 1, 3) == 3.0);
    assert_true(delay(b, 0, 1, 0.2) == 0.5); /* a hint never shortens */
    assert_true(delay(b, 0, 5, 7.5) == 8.0);
    assert_true(delay(b, 0, 1, 30) == 30.0);
    assert_true(delay(b, 0, 1, 120) == 30.0); /* capped at max_delay_seconds */
    assert_true(delay(b, 0, 1, 1e300) == 30.0);
    assert_true(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_THROTTLED, 429, 12, NULL) == 12.0);
    assert_true(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_SERVER_ERROR, 503, 90, NULL) == 30.0);
    /* a hint does not turn a stop into a retry */
    assert_true(respite_backoff_next(b, 0, 3, RESPITE_OUTCOME_THROTTLED, 429, 5, NULL) == RESPITE_RETRY_STOP);
    respite_backoff_free(b);

    b = make((kv[]){{"jitter", "full"}, {"seed", "3"}, {NULL, NULL}});
    for (int64_t seq = 0; seq < 100; seq++)
        assert_true(delay(b, seq, 2, 0.75) >= 0.75);
    respite_backoff_free(b);
}

static void test_B8_success_stops(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"retry_on", "transport,unusable,400"}, {NULL, NULL}});
    assert_true(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_SUCCESS, 0, 0, NULL) == RESPITE_RETRY_STOP);
    assert_true(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_SUCCESS, 200, 5, NULL) == RESPITE_RETRY_STOP);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_SUCCESS, 400, NULL), 0);
    respite_backoff_free(b);
}

static void test_B9_default_retry_on(void **state)
{
    (void)state;
    respite_backoff *b = make(NULL); /* transport, 408, 429, 500, 502, 503, 504 */
    static const struct {
        int outcome, status, retried;
    } cases[] = {
        {RESPITE_OUTCOME_TRANSPORT, 0, 1},      {RESPITE_OUTCOME_REQUEST_ERROR, 408, 1},
        {RESPITE_OUTCOME_REQUEST_ERROR, 400, 0}, {RESPITE_OUTCOME_REQUEST_ERROR, 404, 0},
        {RESPITE_OUTCOME_THROTTLED, 429, 1},    {RESPITE_OUTCOME_THROTTLED, 0, 0},
        {RESPITE_OUTCOME_SERVER_ERROR, 500, 1}, {RESPITE_OUTCOME_SERVER_ERROR, 501, 0},
        {RESPITE_OUTCOME_SERVER_ERROR, 502, 1}, {RESPITE_OUTCOME_SERVER_ERROR, 503, 1},
        {RESPITE_OUTCOME_SERVER_ERROR, 504, 1}, {RESPITE_OUTCOME_SERVER_ERROR, 505, 0},
        {RESPITE_OUTCOME_SERVER_ERROR, 0, 0},   {RESPITE_OUTCOME_UNUSABLE, 200, 0},
        {RESPITE_OUTCOME_UNUSABLE, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(respite_backoff_retries_on(b, cases[i].outcome, cases[i].status, NULL), cases[i].retried);
        double next = respite_backoff_next(b, 0, 1, cases[i].outcome, cases[i].status, 0, NULL);
        assert_true(cases[i].retried ? next == 0.5 : next == RESPITE_RETRY_STOP);
    }
    respite_backoff_free(b);
}

static void test_B9_outcome_names_match_every_status_of_the_outcome(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"retry_on", " server_error , unusable"}, {NULL, NULL}});
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_SERVER_ERROR, 501, NULL), 1);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_SERVER_ERROR, 0, NULL), 1);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_UNUSABLE, 200, NULL), 1);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_THROTTLED, 429, NULL), 0);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_TRANSPORT, 0, NULL), 0);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_REQUEST_ERROR, 400, NULL), 0);
    respite_backoff_free(b);

    b = make((kv[]){{"retry_on", "throttled,request_error,transport"}, {NULL, NULL}});
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_THROTTLED, 0, NULL), 1);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_REQUEST_ERROR, 404, NULL), 1);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_TRANSPORT, 0, NULL), 1);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_SERVER_ERROR, 503, NULL), 0);
    respite_backoff_free(b);

    /* a listed code matches whatever outcome carries it */
    b = make((kv[]){{"retry_on", "404"}, {NULL, NULL}});
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_REQUEST_ERROR, 404, NULL), 1);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_REQUEST_ERROR, 403, NULL), 0);
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_TRANSPORT, 0, NULL), 0);
    respite_backoff_free(b);
}

static void test_B10_sequences_count_up(void **state)
{
    (void)state;
    respite_backoff *b = make(NULL);
    respite_backoff *other = make(NULL);
    for (int64_t i = 0; i < 5; i++)
        assert_int_equal(respite_backoff_start(b, NULL), i);
    assert_int_equal(respite_backoff_start(other, NULL), 0); /* per back-off */
    respite_backoff_free(b);
    respite_backoff_free(other);
}

#define THREADS 4
#define STARTS 2000

static void *take_sequences(void *arg)
{
    respite_backoff *b = arg;
    int64_t *taken = calloc(STARTS, sizeof *taken);
    for (int i = 0; i < STARTS; i++) {
        taken[i] = respite_backoff_start(b, NULL);
        delay(b, taken[i], 2, 0); /* reading while others start */
    }
    return taken;
}

static void test_B10_shared_between_threads(void **state)
{
    (void)state;
    respite_backoff *b = make((kv[]){{"jitter", "full"}, {NULL, NULL}});
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, take_sequences, b), 0);
    unsigned char *seen = calloc(THREADS * STARTS, 1);
    for (int t = 0; t < THREADS; t++) {
        int64_t *taken;
        assert_int_equal(pthread_join(threads[t], (void **)&taken), 0);
        for (int i = 0; i < STARTS; i++) {
            assert_true(taken[i] >= 0 && taken[i] < THREADS * STARTS);
            assert_false(seen[taken[i]]); /* every sequence handed out once */
            seen[taken[i]] = 1;
        }
        free(taken);
    }
    free(seen);
    respite_backoff_free(b);
}

static void assert_error(int status, const respite_error *err, const char *message)
{
    assert_int_equal(err->status, status);
    assert_string_equal(err->message, message);
}

static void test_B11_null_backoff_is_closed(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_backoff_start(NULL, &err), -1);
    assert_error(RESPITE_E_CLOSED, &err, "backoff is closed");
    respite_error_clear(&err);
    assert_true(respite_backoff_delay(NULL, 0, 1, 0, &err) == -1.0);
    assert_error(RESPITE_E_CLOSED, &err, "backoff is closed");
    respite_error_clear(&err);
    assert_int_equal(respite_backoff_retries_on(NULL, RESPITE_OUTCOME_TRANSPORT, 0, &err), -1);
    assert_error(RESPITE_E_CLOSED, &err, "backoff is closed");
    respite_error_clear(&err);
    assert_true(isnan(respite_backoff_next(NULL, 0, 1, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err)));
    assert_error(RESPITE_E_CLOSED, &err, "backoff is closed");
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(NULL, NULL, NULL, NULL, NULL, NULL, &err), RESPITE_E_CLOSED);
    assert_error(RESPITE_E_CLOSED, &err, "backoff is closed");
    assert_int_equal(respite_backoff_max_attempts(NULL), -1);
    respite_backoff_free(NULL); /* a no-op */
}

static void test_B11_bad_arguments_name_what_is_accepted(void **state)
{
    (void)state;
    respite_backoff *b = make(NULL);
    respite_error err;
    respite_error_clear(&err);
    assert_true(respite_backoff_delay(b, 0, 0, 0, &err) == -1.0);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err, "retry must be an integer 1 or more (got 0)");
    assert_true(respite_backoff_delay(b, 0, -4, 0, &err) == -1.0);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err, "retry must be an integer 1 or more (got -4)");
    assert_true(respite_backoff_delay(b, -1, 1, 0, &err) == -1.0);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "sequence must be an integer 0 or more from respite_backoff_start (got -1)");
    assert_true(respite_backoff_delay(b, 0, 1, -1, &err) == -1.0);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got -1)");
    assert_true(respite_backoff_delay(b, 0, 1, NAN, &err) == -1.0);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got nan)");
    assert_true(respite_backoff_delay(b, 0, 1, -INFINITY, &err) == -1.0);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got -inf)");
    assert_true(respite_backoff_delay(b, 0, 1, INFINITY, &err) == -1.0);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got inf)");

    assert_true(isnan(respite_backoff_next(b, 0, 0, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err)));
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err, "attempt must be an integer 1 or more (got 0)");
    assert_true(isnan(respite_backoff_next(b, 0, 1, 6, 0, 0, &err)));
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "outcome must be a respite_outcome from 0 to 5 (success, request_error, throttled, server_error, "
                 "unusable, transport) (got 6)");
    assert_true(isnan(respite_backoff_next(b, 0, 1, -1, 0, 0, &err)));
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "outcome must be a respite_outcome from 0 to 5 (success, request_error, throttled, server_error, "
                 "unusable, transport) (got -1)");
    assert_true(isnan(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_SERVER_ERROR, 600, 0, &err)));
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err, "http_status must be 0 (none) or an integer from 100 to 599 (got 600)");
    assert_true(isnan(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_SERVER_ERROR, 99, 0, &err)));
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err, "http_status must be 0 (none) or an integer from 100 to 599 (got 99)");
    assert_true(isnan(respite_backoff_next(b, 0, 1, RESPITE_OUTCOME_THROTTLED, 429, -0.5, &err)));
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got -0.5)");
    assert_int_equal(respite_backoff_retries_on(b, 42, 0, &err), -1);
    assert_error(RESPITE_E_INVALID_ARGUMENT, &err,
                 "outcome must be a respite_outcome from 0 to 5 (success, request_error, throttled, server_error, "
                 "unusable, transport) (got 42)");
    assert_int_equal(respite_backoff_retries_on(b, RESPITE_OUTCOME_SERVER_ERROR, 1000, &err), -1);
    /* bad input is reported even when NULL err is passed, by the return value */
    assert_true(respite_backoff_delay(b, 0, 0, 0, NULL) == -1.0);
    assert_true(isnan(respite_backoff_next(b, 0, 1, 9, 0, 0, NULL)));
    respite_backoff_free(b);
}

static void test_B11_new_needs_valid_backoff_settings(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    respite_settings *g = respite_settings_new("gate", NULL);
    assert_null(respite_backoff_new(g, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.setting, "component");
    assert_string_equal(err.message, "settings must be backoff settings (got gate settings)");
    respite_settings_free(g);
    /* NULL settings: the defaults */
    respite_backoff *b = respite_backoff_new(NULL, &err);
    assert_non_null(b);
    assert_int_equal(respite_backoff_max_attempts(b), 3);
    assert_true(delay(b, 0, 1, 0) == 0.5);
    respite_backoff_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_B1_max_attempts_counts_every_attempt),
        cmocka_unit_test(test_B2_exponential_without_jitter_is_capped),
        cmocka_unit_test(test_B15_polly_exponential_2_4_8),
        cmocka_unit_test(test_B15_polly_constant),
        cmocka_unit_test(test_B15_polly_seed_capped_series_nearest_schedule),
        cmocka_unit_test(test_B3_full_jitter_range_and_formula),
        cmocka_unit_test(test_B4_equal_jitter_range_and_formula),
        cmocka_unit_test(test_B5_decorrelated_jitter_formula_range_and_cap),
        cmocka_unit_test(test_B6_seeded_golden_values),
        cmocka_unit_test(test_B6_same_seed_same_delays_other_seed_other_delays),
        cmocka_unit_test(test_B7_retry_after_hint_raises_the_delay_up_to_the_cap),
        cmocka_unit_test(test_B8_success_stops),
        cmocka_unit_test(test_B9_default_retry_on),
        cmocka_unit_test(test_B9_outcome_names_match_every_status_of_the_outcome),
        cmocka_unit_test(test_B10_sequences_count_up),
        cmocka_unit_test(test_B10_shared_between_threads),
        cmocka_unit_test(test_B11_null_backoff_is_closed),
        cmocka_unit_test(test_B11_bad_arguments_name_what_is_accepted),
        cmocka_unit_test(test_B11_new_needs_valid_backoff_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

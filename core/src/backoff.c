/* Retry schedules (behaviour section 3, docs/spec.md B rules). A back-off is
 * immutable after _new except for its sequence counter, so it is shared
 * between threads without a lock; every delay is a pure function of
 * (key, sequence, retry), which is what makes seeded runs portable. */
#include "internal.h"
#include "retry_on_list.h"
#include "rng.h"
#include "utf8.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_GAMMA UINT64_C(0x9E3779B97F4A7C15)

struct respite_backoff {
    _Atomic int refs; /* holders: the creator, clients */
    int max_attempts;
    double initial;
    double multiplier;
    double max_delay;
    double max_elapsed; /* 0: no limit (B16) */
    int jitter;
    uint64_t key;
    respite_retry_on_list retry_on;
    _Atomic int64_t next_sequence;
};

/* Fills the retry_on sets from the already-validated list text. */
static int parse_retry_on(respite_backoff *b, const char *text, respite_error *err)
{
    if (respite_retry_on_list_parse(text, &b->retry_on))
        return RESPITE_OK;
    char got[RESPITE_QUOTED_MAX];
    return respite_fail_setting(err, "retry_on", "retry_on must be %s (got %s)",
                                respite_setting_find("backoff", "retry_on")->accepted, respite_quoted(got, text));
}

respite_backoff *respite_backoff_new(const respite_settings *settings, respite_error *err)
{
    respite_settings *defaults = NULL;
    if (!settings) {
        defaults = respite_settings_new("backoff", err);
        if (!defaults)
            return NULL;
        settings = defaults;
    }
    respite_backoff *b = NULL;
    if (respite_settings_expect(settings, "backoff", "settings", err) != RESPITE_OK)
        goto done;
    if (respite_settings_validate(settings, err))
        goto done;
    b = calloc(1, sizeof *b);
    if (!b) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a back-off");
        goto done;
    }
    b->max_attempts = (int)respite_setting_integer(settings, RESPITE_SETTING_BACKOFF_MAX_ATTEMPTS);
    b->initial = respite_setting_number(settings, RESPITE_SETTING_BACKOFF_INITIAL_DELAY_SECONDS);
    b->multiplier = respite_setting_number(settings, RESPITE_SETTING_BACKOFF_MULTIPLIER);
    b->max_delay = respite_setting_number(settings, RESPITE_SETTING_BACKOFF_MAX_DELAY_SECONDS);
    b->max_elapsed = respite_setting_number(settings, RESPITE_SETTING_BACKOFF_MAX_ELAPSED_SECONDS);
    b->jitter = respite_setting_choice(settings, RESPITE_SETTING_BACKOFF_JITTER); /* a respite_jitter */
    uint64_t seed = (uint64_t)respite_setting_integer(settings, RESPITE_SETTING_BACKOFF_SEED);
    b->key = seed ? seed : respite_os_seed();
    atomic_init(&b->next_sequence, 0);
    atomic_init(&b->refs, 1);
    if (parse_retry_on(b, respite_setting_text(settings, RESPITE_SETTING_BACKOFF_RETRY_ON), err)) {
        free(b);
        b = NULL;
    }
done:
    respite_settings_free(defaults);
    return b;
}

respite_backoff *respite_backoff_retain(respite_backoff *backoff)
{
    if (backoff)
        atomic_fetch_add_explicit(&backoff->refs, 1, memory_order_relaxed);
    return backoff;
}

void respite_backoff_free(respite_backoff *backoff)
{
    if (backoff && atomic_fetch_sub_explicit(&backoff->refs, 1, memory_order_acq_rel) == 1)
        free(backoff);
}

static int fail_closed(respite_error *err)
{
    return respite_closed(RESPITE_HANDLE_BACKOFF, err);
}

int64_t respite_backoff_start(respite_backoff *backoff, respite_error *err)
{
    if (!backoff) {
        fail_closed(err);
        return -1;
    }
    return atomic_fetch_add_explicit(&backoff->next_sequence, 1, memory_order_relaxed);
}

int respite_backoff_max_attempts(const respite_backoff *backoff)
{
    return backoff ? backoff->max_attempts : -1;
}

double respite_backoff_max_elapsed(const respite_backoff *backoff)
{
    return backoff->max_elapsed;
}

/* The uniform u in [0, 1) for retry k of a sequence (spec B9). */
static double uniform_for(const respite_backoff *b, int64_t sequence, int retry)
{
    uint64_t counter = (uint64_t)sequence * GOLDEN_GAMMA + (uint64_t)retry;
    return respite_unit_double(respite_mix64(b->key ^ respite_mix64(counter)));
}

/* Polly's DecorrelatedJitterBackoffV2 term for a 0-based attempt a. */
static double decorrelated_term(double a, double u)
{
    double t = a + u;
    return pow(2.0, t) * tanh(sqrt(4.0 * t));
}

static double jittered_delay(const respite_backoff *b, int64_t sequence, int retry)
{
    if (b->jitter == RESPITE_JITTER_DECORRELATED) {
        double next = decorrelated_term(retry - 1, uniform_for(b, sequence, retry));
        double prev = retry == 1 ? 0.0 : decorrelated_term(retry - 2, uniform_for(b, sequence, retry - 1));
        if (!isfinite(next)) /* 2^t overflows only far beyond max_attempts */
            return b->max_delay;
        double d = (next - prev) * (1.0 / 1.4) * b->initial;
        return fmin(fmax(d, 0.0), b->max_delay);
    }
    double d = fmin(b->initial * pow(b->multiplier, retry - 1), b->max_delay);
    switch (b->jitter) {
    case RESPITE_JITTER_FULL:
        return d * uniform_for(b, sequence, retry);
    case RESPITE_JITTER_EQUAL:
        return d / 2.0 + d / 2.0 * uniform_for(b, sequence, retry);
    default:
        return d;
    }
}

static int check_sequence_and_retry(int64_t sequence, int retry, const char *retry_name, respite_error *err)
{
    if (sequence < 0)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "sequence must be an integer 0 or more from respite_backoff_start (got %lld)",
                            (long long)sequence);
    if (retry < 1)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "%s must be an integer 1 or more (got %d)", retry_name,
                            retry);
    return RESPITE_OK;
}

/* Same rule and words as respite_gate_report, so one hint is valid for both. */
static int check_hint(double hint, respite_error *err)
{
    if (hint >= 0.0 && hint <= DBL_MAX) /* false for NaN and infinity */
        return RESPITE_OK;
    char text[40];
    return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                        "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got %s)",
                        respite_format_number(hint, text, sizeof text));
}

static double delay_with_hint(const respite_backoff *b, int64_t sequence, int retry, double hint)
{
    double d = jittered_delay(b, sequence, retry);
    double raised = fmin(hint, b->max_delay);
    return raised > d ? raised : d;
}

double respite_backoff_delay(const respite_backoff *backoff, int64_t sequence, int retry, double retry_after_hint,
                             respite_error *err)
{
    if (!backoff) {
        fail_closed(err);
        return -1.0;
    }
    if (check_sequence_and_retry(sequence, retry, "retry", err) || check_hint(retry_after_hint, err))
        return -1.0;
    return delay_with_hint(backoff, sequence, retry, retry_after_hint);
}

static int check_outcome_and_status(int outcome, int http_status, respite_error *err)
{
    if (respite_outcome_check(outcome, err) < 0)
        return RESPITE_E_INVALID_ARGUMENT;
    if (http_status != 0 && (http_status < 100 || http_status > 599))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "http_status must be 0 (none) or an integer from 100 to 599 (got %d)", http_status);
    return RESPITE_OK;
}

int respite_backoff_retries_on(const respite_backoff *backoff, int outcome, int http_status, respite_error *err)
{
    if (!backoff) {
        fail_closed(err);
        return -1;
    }
    if (check_outcome_and_status(outcome, http_status, err))
        return -1;
    return respite_retry_on_list_has(&backoff->retry_on, outcome, http_status);
}

double respite_backoff_next(const respite_backoff *backoff, int64_t sequence, int attempt, int outcome,
                            int http_status, double retry_after_hint, respite_error *err)
{
    if (!backoff) {
        fail_closed(err);
        return NAN;
    }
    if (check_sequence_and_retry(sequence, attempt, "attempt", err) ||
        check_outcome_and_status(outcome, http_status, err) || check_hint(retry_after_hint, err))
        return NAN;
    if (!respite_retry_on_list_has(&backoff->retry_on, outcome, http_status) || attempt >= backoff->max_attempts)
        return RESPITE_RETRY_STOP;
    return delay_with_hint(backoff, sequence, attempt, retry_after_hint);
}

/* The fast-path protocol (docs/spec.md K1-K6): a binding's closed path,
 * decided by respite/fast_path_reader.h (what the C bindings use) from
 * respite_fast_path alone, replayed step by step against the same gate
 * driven through the core only. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../support/test_support.h"
#include "respite.h"
#include "respite/fast_path_reader.h"

/* A binding over one gate: its fast path (NULL: core only) and the events it took. */
typedef struct binding {
    respite_gate *gate;
    respite_fast_path fp;
    respite_fast_reader reader;
    int fast;
    int fast_decisions;
    char log[4096];
} binding;

static uint64_t load_word(int64_t address)
{
    return atomic_load_explicit((_Atomic uint64_t *)(intptr_t)address, memory_order_acquire);
}

/* b's fast path from the core, and its reader. */
static void attach(binding *b)
{
    assert_int_equal(respite_gate_fast_path(b->gate, &b->fp, NULL), RESPITE_OK);
    respite_fast_reader_init(&b->reader, &b->fp);
}

static void take_events(binding *b)
{
    respite_event e;
    while (respite_gate_next_event(b->gate, &e, NULL) == 1) {
        char line[64];
        snprintf(line, sizeof line, "%d@%.6f;", e.type, e.at);
        strncat(b->log, line, sizeof b->log - strlen(b->log) - 1);
    }
}

/* The events rule: after the core, by its count; after a fast decision, by the two words (K4). */
static void after_call(binding *b, int decided_here)
{
    if (decided_here) {
        if (respite_fast_reader_events_waiting(&b->reader))
            take_events(b);
    } else if (respite_gate_events_pending(b->gate) > 0) {
        take_events(b);
    }
}

static int64_t b_admit(binding *b, double now, respite_error *err)
{
    int64_t permit = b->fast && now >= 0 && isfinite(now) ? respite_fast_reader_admit(&b->reader) : 0;
    int here = permit != 0;
    if (here)
        b->fast_decisions++;
    else
        permit = respite_gate_admit(b->gate, now, err);
    after_call(b, here);
    return permit;
}

static int b_report(binding *b, int64_t permit, int outcome, double now, respite_error *err)
{
    int here = b->fast && now >= 0 && isfinite(now) && outcome == RESPITE_OUTCOME_SUCCESS &&
               respite_fast_reader_success(&b->reader, permit);
    int rc = RESPITE_OK;
    if (here) {
        b->fast_decisions++;
    } else {
        rc = respite_gate_report(b->gate, permit, outcome, 0, now, err);
    }
    after_call(b, here);
    return rc;
}

static respite_gate *replay_gate(int probes)
{
    char pairs[256];
    snprintf(pairs, sizeof pairs,
             "failures_to_enter_recovery=3,failures_window_seconds=10,recovery_seconds=1,"
             "recovery_multiplier=2,max_recovery_seconds=8,probes=%d,probe_timeout_seconds=2,jitter=0.5,seed=7",
             probes);
    respite_settings *s = settings_of("gate", pairs);
    respite_error err;
    respite_gate *g = respite_gate_new(s, &err);
    respite_settings_free(s);
    assert_non_null(g);
    return g;
}

static void assert_same_stats(respite_gate *a, respite_gate *b)
{
    respite_gate_stats x, y;
    assert_int_equal(respite_gate_stats_get(a, &x, NULL), RESPITE_OK);
    assert_int_equal(respite_gate_stats_get(b, &y, NULL), RESPITE_OK);
    assert_int_equal(x.admitted, y.admitted);
    assert_int_equal(x.refused, y.refused);
    assert_int_equal(x.reported, y.reported);
    assert_int_equal(x.late, y.late);
    assert_int_equal(x.counted_failures, y.counted_failures);
    assert_int_equal(x.trips, y.trips);
    assert_int_equal(x.probes, y.probes);
    assert_int_equal(x.probe_timeouts, y.probe_timeouts);
    assert_int_equal(x.successes, y.successes);
    assert_int_equal(x.pauses, y.pauses);
    assert_int_equal(x.generation, y.generation);
    assert_int_equal(x.state, y.state);
    assert_true(x.delay == y.delay && x.until == y.until);
}

/* K6: random steps - admits, outcomes, time moves, and "another user" (an
 * engine's report through the core, a reset) between an admit and its
 * report - give the same answers, statistics and events both ways. */
static void replay(int probes, unsigned seed)
{
    binding fast = {.gate = replay_gate(probes), .fast = 1};
    binding core = {.gate = replay_gate(probes), .fast = 0};
    attach(&fast);
    attach(&core); /* words only */
    uint64_t rng = seed;
    double now = 0;
    int64_t held_fast[8] = {0}, held_core[8] = {0};
    for (int step = 0; step < 20000; step++) {
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        unsigned r = (unsigned)(rng >> 33);
        int slot = (int)(r % 8);
        respite_error ef, ec;
        respite_error_clear(&ef);
        respite_error_clear(&ec);
        switch ((r >> 3) % 10) {
        case 0: case 1: case 2: { /* admit into a slot */
            int64_t pf = b_admit(&fast, now, &ef), pc = b_admit(&core, now, &ec);
            assert_int_equal(pf, pc);
            assert_int_equal(ef.status, ec.status);
            assert_true(ef.retry_after == ec.retry_after);
            held_fast[slot] = pf > 0 ? pf : 0;
            held_core[slot] = pc > 0 ? pc : 0;
            break;
        }
        case 3: case 4: case 5: { /* an outcome for a held permit (0: none) */
            static const int outcomes[] = {RESPITE_OUTCOME_SUCCESS, RESPITE_OUTCOME_SUCCESS, RESPITE_OUTCOME_SUCCESS,
                                           RESPITE_OUTCOME_SERVER_ERROR, RESPITE_OUTCOME_REQUEST_ERROR};
            int outcome = outcomes[(r >> 8) % 5];
            int rf = b_report(&fast, held_fast[slot], outcome, now, &ef);
            int rc = b_report(&core, held_core[slot], outcome, now, &ec);
            assert_int_equal(rf, rc);
            held_fast[slot] = held_core[slot] = 0;
            break;
        }
        case 6: case 7: /* time moves */
            now += ((r >> 8) % 1000) / 400.0;
            break;
        case 8: /* another user of the gate (an engine, a client) fails through the core */
            assert_int_equal(respite_gate_report(fast.gate, 0, RESPITE_OUTCOME_TRANSPORT, 0, now, NULL),
                             respite_gate_report(core.gate, 0, RESPITE_OUTCOME_TRANSPORT, 0, now, NULL));
            break;
        default:
            if ((r >> 8) % 20 == 0) {
                respite_gate_reset(fast.gate, now, NULL);
                respite_gate_reset(core.gate, now, NULL);
            }
            /* the caller's own bad time goes to the core both ways */
            assert_int_equal(b_admit(&fast, -1, &ef), b_admit(&core, -1, &ec));
            assert_int_equal(ef.status, ec.status);
            break;
        }
        if (step % 997 == 0)
            assert_same_stats(fast.gate, core.gate);
    }
    assert_same_stats(fast.gate, core.gate);
    assert_string_equal(fast.log, core.log);
    assert_true(fast.fast_decisions > 1000); /* the fast path was taken */
    respite_gate_free(fast.gate);
    respite_gate_free(core.gate);
}

static void test_K6_replay_with_probes(void **state)
{
    (void)state;
    replay(1, 1);
    replay(2, 99);
}

static void test_K6_replay_probes_0_G11(void **state)
{
    (void)state;
    replay(0, 5);
}

/* K2, K3: the masks say closed, open, probing and unconfirmed as the core does. */
static void test_K2_K3_words_of_each_state(void **state)
{
    (void)state;
    respite_gate *g = gate_with(1, 10);
    respite_fast_path fp;
    assert_int_equal(respite_gate_fast_path(g, &fp, NULL), RESPITE_OK);
    assert_int_equal(fp.word_address % 8, 0);
    assert_int_equal(fp.block_address % 8, 0);
    assert_true(fp.block_size >= fp.admitted_offset + 8 && fp.block_size >= fp.reported_offset + 8);
    uint64_t w = load_word(fp.word_address);
    assert_true((w & (uint64_t)fp.admit_mask) == (uint64_t)fp.admit_value);
    assert_true((w & (uint64_t)fp.success_mask) == (uint64_t)fp.success_value);
    int64_t permit = respite_gate_admit(g, 0, NULL);
    assert_int_equal(permit, (int64_t)(w & (uint64_t)fp.permit_mask));
    assert_int_equal(respite_gate_report(g, permit, RESPITE_OUTCOME_SERVER_ERROR, 0, 0, NULL), RESPITE_OK);
    w = load_word(fp.word_address);
    assert_false((w & (uint64_t)fp.admit_mask) == (uint64_t)fp.admit_value); /* open */
    assert_true((w & (uint64_t)fp.permit_mask) > (uint64_t)permit);          /* a new generation */
    assert_int_equal(respite_gate_get_state(g, 11, NULL), RESPITE_GATE_PROBING);
    w = load_word(fp.word_address);
    assert_false((w & (uint64_t)fp.admit_mask) == (uint64_t)fp.admit_value); /* probing */
    respite_gate_free(g);

    respite_settings *s = settings_of("gate", "failures_to_enter_recovery=1,recovery_seconds=10,probes=0");
    g = respite_gate_new(s, NULL);
    respite_settings_free(s);
    assert_int_equal(respite_gate_fast_path(g, &fp, NULL), RESPITE_OK);
    respite_gate_report(g, 0, RESPITE_OUTCOME_SERVER_ERROR, 0, 0, NULL);
    assert_int_equal(respite_gate_get_state(g, 11, NULL), RESPITE_GATE_CLOSED);
    w = load_word(fp.word_address);
    assert_true((w & (uint64_t)fp.admit_mask) == (uint64_t)fp.admit_value);       /* admits */
    assert_false((w & (uint64_t)fp.success_mask) == (uint64_t)fp.success_value);  /* G11: unconfirmed */
    respite_gate_free(g);
}

/* K5: blocks are summed into the statistics; K4: the event words. */
static void test_K4_K5_blocks_and_event_words(void **state)
{
    (void)state;
    respite_gate *g = gate_with(1, 10);
    binding a = {.gate = g, .fast = 1}, b = {.gate = g, .fast = 1};
    attach(&a);
    attach(&b);
    assert_true(a.fp.block_address != b.fp.block_address);
    for (int i = 0; i < 5; i++)
        b_report(&a, b_admit(&a, 0, NULL), RESPITE_OUTCOME_SUCCESS, 0, NULL);
    b_admit(&b, 0, NULL);
    respite_gate_admit(g, 0, NULL);
    respite_gate_stats st;
    assert_int_equal(respite_gate_stats_get(g, &st, NULL), RESPITE_OK);
    assert_int_equal(st.admitted, 7);
    assert_int_equal(st.reported, 5);
    assert_int_equal(st.successes, 5); /* K3 adds only to reported: every one a success */
    /* the core's own reports of other outcomes are not successes */
    assert_int_equal(respite_gate_report(g, 0, RESPITE_OUTCOME_REQUEST_ERROR, 0, 0, NULL), RESPITE_OK);
    b_report(&b, 0, RESPITE_OUTCOME_SUCCESS, 0, NULL);
    assert_int_equal(respite_gate_stats_get(g, &st, NULL), RESPITE_OK);
    assert_int_equal(st.reported, 7);
    assert_int_equal(st.successes, 6);
    assert_int_equal(st.pauses, 0);
    assert_int_equal(a.fast_decisions + b.fast_decisions, 12);
    assert_true(load_word(a.fp.events_address) == load_word(a.fp.cursor_address));
    respite_gate_reset(g, 1, NULL); /* another user's transition: an event waits */
    assert_false(load_word(a.fp.events_address) == load_word(a.fp.cursor_address));
    b_admit(&a, 2, NULL);
    assert_non_null(strstr(a.log, "@1.000000"));
    assert_true(load_word(a.fp.events_address) == load_word(a.fp.cursor_address));
    respite_gate_free(g);
}

/* K1, K5 on a gate with shared_path: the word is the slot's; blocks fold into its totals. */
static void test_K1_K5_shared_gate(void **state)
{
    (void)state;
    char file[] = "/tmp/respite-fast-path-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    unlink(file);
    char pairs[256];
    snprintf(pairs, sizeof pairs, "shared_path=%s,name=fast,failures_to_enter_recovery=1,recovery_seconds=10", file);
    respite_settings *s = settings_of("gate", pairs);
    respite_error err;
    respite_gate *one = respite_gate_new(s, &err), *two = respite_gate_new(s, &err);
    respite_settings_free(s);
    assert_non_null(one);
    assert_non_null(two);
    binding a = {.gate = one, .fast = 1};
    attach(&a);
    int64_t permit = b_admit(&a, 0, NULL);
    assert_true(permit > 0);
    assert_int_equal(a.fast_decisions, 1);
    respite_gate_stats st;
    assert_int_equal(respite_gate_stats_get(one, &st, NULL), RESPITE_OK);
    assert_int_equal(st.admitted, 1);
    /* another handle opens the slot: the word one reads says so */
    assert_int_equal(respite_gate_report(two, 0, RESPITE_OUTCOME_SERVER_ERROR, 0, 0, NULL), RESPITE_OK);
    respite_error_clear(&err);
    assert_int_equal(b_admit(&a, 0, &err), 0);
    assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_int_equal(b_report(&a, permit, RESPITE_OUTCOME_SUCCESS, 0, NULL), RESPITE_OK); /* late, by the core */
    assert_int_equal(respite_gate_stats_get(two, &st, NULL), RESPITE_OK);
    assert_int_equal(st.late, 1);
    assert_int_equal(st.pauses, 1);
    assert_int_equal(st.successes, 1);
    /* a success settled on the fast path while closed folds into the slot's successes */
    assert_int_equal(respite_gate_reset(two, 1, NULL), RESPITE_OK);
    assert_int_equal(b_report(&a, b_admit(&a, 1, NULL), RESPITE_OUTCOME_SUCCESS, 1, NULL), RESPITE_OK);
    assert_int_equal(a.fast_decisions, 3);
    assert_int_equal(respite_gate_stats_get(two, &st, NULL), RESPITE_OK);
    assert_int_equal(st.successes, 2);
    assert_int_equal(st.reported, 3);
    respite_gate_free(one);
    respite_gate_free(two);
    unlink(file);
}

/* K3, G6: a success of an earlier generation is the core's (late), even
 * while the gate is closed and confirmed again in a later one. */
static void test_K3_an_earlier_generation_is_late(void **state)
{
    (void)state;
    respite_gate *g = gate_with(1, 10);
    binding a = {.gate = g, .fast = 1};
    attach(&a);
    int64_t old = b_admit(&a, 0, NULL);
    assert_true(old > 0);
    assert_int_equal(respite_gate_report(g, 0, RESPITE_OUTCOME_SERVER_ERROR, 0, 0, NULL), RESPITE_OK); /* opens */
    assert_int_equal(respite_gate_reset(g, 1, NULL), RESPITE_OK);                                      /* closed again */
    int64_t current = b_admit(&a, 1, NULL);
    assert_true(current > old);
    assert_int_equal(a.fast_decisions, 2);
    assert_int_equal(b_report(&a, old, RESPITE_OUTCOME_SUCCESS, 1, NULL), RESPITE_OK);
    assert_int_equal(a.fast_decisions, 2); /* not decided here */
    respite_gate_stats st;
    assert_int_equal(respite_gate_stats_get(g, &st, NULL), RESPITE_OK);
    assert_int_equal(st.late, 1);
    assert_int_equal(b_report(&a, current, RESPITE_OUTCOME_SUCCESS, 1, NULL), RESPITE_OK);
    assert_int_equal(a.fast_decisions, 3);
    assert_int_equal(respite_gate_stats_get(g, &st, NULL), RESPITE_OK);
    assert_int_equal(st.late, 1);
    assert_int_equal(st.successes, 2);
    respite_gate_free(g);
}

static void test_K_closed_gate_and_null_out(void **state)
{
    (void)state;
    respite_error err;
    respite_fast_path fp;
    respite_error_clear(&err);
    assert_int_equal(respite_gate_fast_path(NULL, &fp, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "gate is closed");
    respite_gate *g = gate_with(1, 10);
    assert_int_equal(respite_gate_fast_path(g, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    respite_gate_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_K6_replay_with_probes),
        cmocka_unit_test(test_K6_replay_probes_0_G11),
        cmocka_unit_test(test_K2_K3_words_of_each_state),
        cmocka_unit_test(test_K4_K5_blocks_and_event_words),
        cmocka_unit_test(test_K1_K5_shared_gate),
        cmocka_unit_test(test_K3_an_earlier_generation_is_late),
        cmocka_unit_test(test_K_closed_gate_and_null_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The local gate's side of a fleet gate (docs/spec.md F5-F7, F10, F11):
 * the hooks of core/src/gate_fleet.h on a gate, with no Redis - what the
 * fleet module's thread does to the gate, step by step. */
#include "../support/test_support.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../core/src/gate_fleet.h"

/* A named gate: N 3, W 10, R 5, one probe. */
static respite_gate *fleet_local_gate(const char *extra)
{
    char pairs[300];
    snprintf(pairs, sizeof pairs, "name=cloud,failures_to_enter_recovery=3,failures_window_seconds=10,"
                                  "recovery_seconds=5%s%s",
             extra ? "," : "", extra ? extra : "");
    respite_settings *s = settings_of("gate", pairs);
    respite_error err;
    respite_error_clear(&err);
    respite_gate *g = respite_gate_new(s, &err);
    respite_settings_free(s);
    if (!g)
        fail_msg("%s", err.message);
    return g;
}

static respite_decision check(respite_gate *g, double now)
{
    respite_decision d;
    assert_int_equal(respite_gate_check(g, now, &d, NULL), RESPITE_OK);
    return d;
}

static int next_event_type(respite_gate *g, respite_event *ev)
{
    return respite_gate_next_event(g, ev, NULL) == 1 ? ev->type : -1;
}

/* F5: a closed gate held by the fleet refuses until `until`, as a pause of
 * its own, with the event fleet_paused. */
static void test_f5_hold_opens_a_closed_gate(void **state)
{
    (void)state;
    respite_gate *g = fleet_local_gate(NULL);
    int64_t before = check(g, 1.0).permit;
    assert_int_equal(respite_gate_fleet_hold(g, 6.9, 2, 10.0, 5.0, 1.5, NULL), RESPITE_OK);
    respite_decision d = check(g, 2.0);
    assert_int_equal(d.allowed, 0);
    assert_true(fabs(d.retry_after - 4.9) < 1e-9); /* the fleet's pause and the margin */
    assert_int_equal(respite_gate_get_state(g, 2.0, NULL), RESPITE_GATE_OPEN);
    /* a new generation: the permit from before is late */
    respite_gate_stats st;
    respite_gate_stats_get(g, &st, NULL);
    assert_int_equal(st.generation, 2);
    assert_int_equal(st.trips, 0); /* the fleet's pause is no local opening */
    assert_true(st.delay == 5.0);
    respite_gate_report(g, before, RESPITE_OUTCOME_SUCCESS, 0, 2.0, NULL);
    respite_gate_stats_get(g, &st, NULL);
    assert_int_equal(st.late, 1);
    respite_event ev;
    assert_int_equal(next_event_type(g, &ev), RESPITE_EVENT_FLEET_PAUSED);
    assert_int_equal(ev.count, 2);
    assert_int_equal(ev.failures, 0);
    char line[200];
    respite_event_message(&ev, line, sizeof line);
    assert_string_equal(line, "cloud: fleet paused: 2 hosts' gates opened within 10s; requests paused for 5s");
    assert_int_equal(respite_event_is_warning(ev.type), 1);
    assert_string_equal(respite_event_type_name(ev.type), "fleet_paused");
    /* Its end is the local gate's: probing, one probe (G7). */
    d = check(g, 6.9);
    assert_int_equal(d.allowed, 1);
    assert_int_equal(d.probe, 1);
    assert_int_equal(check(g, 7.0).allowed, 0);
    /* A hold that ends already changes nothing on a closed gate. */
    respite_gate *h = fleet_local_gate(NULL);
    assert_int_equal(respite_gate_fleet_hold(h, 1.0, 2, 10.0, 0, 1.0, NULL), RESPITE_OK);
    assert_int_equal(check(h, 1.0).allowed, 1);
    respite_gate_free(h);
    respite_gate_free(g);
}

/* F5, F7: an open gate's pause ends when the fleet says: later, earlier,
 * or now (then it probes at once). */
static void test_f5_f7_hold_moves_an_open_pause(void **state)
{
    (void)state;
    respite_gate *g = fleet_local_gate(NULL);
    for (int i = 0; i < 3; i++)
        respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SERVER_ERROR, 0, 1.0, NULL);
    assert_true(fabs(check(g, 1.0).retry_after - 5.0) < 1e-9); /* its own pause, 1 + R */
    respite_gate_fleet_hold(g, 9.0, 2, 10.0, 0, 2.0, NULL);          /* later */
    assert_true(fabs(check(g, 7.0).retry_after - 2.0) < 1e-9);
    respite_gate_fleet_hold(g, 8.0, 2, 10.0, 0, 7.0, NULL);          /* earlier */
    assert_true(fabs(check(g, 7.5).retry_after - 0.5) < 1e-9);
    respite_gate_stats st;
    respite_gate_stats_get(g, &st, NULL);
    int64_t generation = st.generation;
    respite_gate_fleet_hold(g, 7.6, 2, 10.0, 0, 7.6, NULL); /* now: this host holds the probe */
    assert_int_equal(respite_gate_get_state(g, 7.6, NULL), RESPITE_GATE_PROBING);
    respite_gate_stats_get(g, &st, NULL);
    assert_int_equal(st.generation, generation); /* ending a pause keeps the generation */
    respite_decision d = check(g, 7.7);
    assert_int_equal(d.probe, 1);
    respite_event ev;
    int types[4], n = 0;
    while (n < 4 && next_event_type(g, &ev) >= 0)
        types[n++] = ev.type;
    assert_int_equal(n, 2);
    assert_int_equal(types[0], RESPITE_EVENT_RECOVERY_STARTED);
    assert_int_equal(types[1], RESPITE_EVENT_PROBING);
    assert_true(ev.at == 7.6);
    respite_gate_free(g);
}

/* F7: probing with no probe out is held again (another host took the
 * lease); with this host's probe out, the hold changes nothing. */
static void test_f7_hold_while_probing(void **state)
{
    (void)state;
    respite_gate *g = fleet_local_gate(NULL);
    respite_gate_fleet_hold(g, 3.0, 2, 10.0, 0, 1.0, NULL);
    assert_int_equal(respite_gate_get_state(g, 3.0, NULL), RESPITE_GATE_PROBING);
    respite_gate_fleet_hold(g, 4.0, 2, 10.0, 0, 3.0, NULL);
    assert_int_equal(respite_gate_get_state(g, 3.0, NULL), RESPITE_GATE_OPEN);
    assert_true(fabs(check(g, 3.5).retry_after - 0.5) < 1e-9);
    respite_decision probe = check(g, 4.0);
    assert_int_equal(probe.probe, 1);
    respite_gate_fleet_hold(g, 9.0, 2, 10.0, 0, 4.1, NULL);
    assert_int_equal(respite_gate_get_state(g, 4.1, NULL), RESPITE_GATE_PROBING);
    respite_gate_report(g, probe.permit, RESPITE_OUTCOME_SUCCESS, 0, 4.2, NULL); /* its probe decides */
    assert_int_equal(respite_gate_get_state(g, 4.2, NULL), RESPITE_GATE_CLOSED);
    respite_gate_free(g);
}

/* F6: another host's probe succeeded: an open or probing gate recovers as
 * after its own probe (G8); a closed gate is left alone. */
static void test_f6_resume(void **state)
{
    (void)state;
    respite_gate *g = fleet_local_gate("recovery_multiplier=2,max_recovery_seconds=60");
    for (int i = 0; i < 3; i++)
        respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SERVER_ERROR, 0, 1.0, NULL);
    respite_decision probe = check(g, 6.0);
    respite_gate_report(g, probe.permit, RESPITE_OUTCOME_SERVER_ERROR, 0, 6.1, NULL); /* delay 10 */
    respite_gate_stats st;
    respite_gate_stats_get(g, &st, NULL);
    assert_true(st.delay == 10.0);
    assert_int_equal(respite_gate_fleet_resume(g, 7.0, NULL), RESPITE_OK);
    assert_int_equal(respite_gate_get_state(g, 7.0, NULL), RESPITE_GATE_CLOSED);
    assert_int_equal(check(g, 7.0).allowed, 1);
    respite_gate_stats_get(g, &st, NULL);
    assert_true(st.delay == 5.0);
    assert_int_equal(st.window_failures, 0);
    respite_event ev, last;
    int recovered = 0;
    while (next_event_type(g, &ev) >= 0)
        last = ev, recovered += ev.type == RESPITE_EVENT_RECOVERED;
    assert_int_equal(recovered, 1);
    assert_int_equal(last.type, RESPITE_EVENT_RECOVERED);
    assert_true(last.at == 7.0);
    /* closed: nothing happens */
    assert_int_equal(respite_gate_fleet_resume(g, 8.0, NULL), RESPITE_OK);
    assert_int_equal(respite_gate_events_pending(g), 0);
    respite_gate_free(g);
}

/* F10, F11: the fleet's events go into the gate's ring, with its name. */
static void test_f10_f11_notes(void **state)
{
    (void)state;
    respite_gate *g = fleet_local_gate(NULL);
    assert_int_equal(respite_gate_fleet_note(g, RESPITE_EVENT_FLEET_STORE_LOST, 3.0, NULL), RESPITE_OK);
    assert_int_equal(respite_gate_fleet_note(g, RESPITE_EVENT_FLEET_REJOINED, 4.0, NULL), RESPITE_OK);
    respite_event ev;
    char line[200];
    assert_int_equal(next_event_type(g, &ev), RESPITE_EVENT_FLEET_STORE_LOST);
    respite_event_message(&ev, line, sizeof line);
    assert_string_equal(line, "cloud: fleet store unreachable or slow: this host decides on its own gate");
    assert_int_equal(respite_event_is_warning(ev.type), 1);
    assert_int_equal(next_event_type(g, &ev), RESPITE_EVENT_FLEET_REJOINED);
    respite_event_message(&ev, line, sizeof line);
    assert_string_equal(line, "cloud: fleet store answers again: this host rejoined the fleet");
    assert_int_equal(respite_event_is_warning(ev.type), 0);
    assert_string_equal(respite_event_type_name(RESPITE_EVENT_FLEET_REJOINED), "fleet_rejoined");
    /* F7: a held host hears that the fleet's pause ended and another host probes */
    assert_int_equal(respite_gate_fleet_note(g, RESPITE_EVENT_FLEET_PROBING, 5.0, NULL), RESPITE_OK);
    assert_int_equal(next_event_type(g, &ev), RESPITE_EVENT_FLEET_PROBING);
    assert_true(ev.at == 5.0);
    respite_event_message(&ev, line, sizeof line);
    assert_string_equal(line, "cloud: fleet pause ended: another host probes for the fleet; requests resume when it "
                              "succeeds");
    assert_int_equal(respite_event_is_warning(ev.type), 0);
    assert_string_equal(respite_event_type_name(RESPITE_EVENT_FLEET_PROBING), "fleet_probing");
    assert_null(respite_event_type_name(RESPITE_EVENT_TYPE_COUNT));
    respite_gate_free(g);
}

static int observed;
static void observe(void *data)
{
    (void)data;
    observed++;
}

/* F3: the observer hears of every call that changed the gate, and of no
 * other. */
static void test_f3_observer(void **state)
{
    (void)state;
    respite_gate *g = fleet_local_gate(NULL);
    respite_gate_set_observer(g, observe, NULL);
    check(g, 1.0);
    respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SUCCESS, 0, 1.0, NULL);
    respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SERVER_ERROR, 0, 1.0, NULL);
    respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SERVER_ERROR, 0, 1.0, NULL);
    assert_int_equal(observed, 0);
    respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SERVER_ERROR, 0, 1.0, NULL); /* opens */
    assert_int_equal(observed, 1);
    check(g, 2.0);
    assert_int_equal(observed, 1);
    check(g, 6.0); /* the pause ended: probing */
    assert_int_equal(observed, 2);
    respite_gate_set_observer(g, NULL, NULL);
    respite_gate_reset(g, 7.0, NULL);
    assert_int_equal(observed, 2);
    respite_gate_free(g);
}

/* The hooks' bad input: a clear error, the gate unchanged. */
static void test_hooks_bad_input(void **state)
{
    (void)state;
    respite_error err;
    assert_int_equal(respite_gate_fleet_hold(NULL, 1, 2, 10, 0, 1, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_gate_fleet_resume(NULL, 1, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_gate_fleet_note(NULL, RESPITE_EVENT_FLEET_REJOINED, 1, &err), RESPITE_E_CLOSED);
    respite_gate *g = fleet_local_gate(NULL);
    assert_int_equal(respite_gate_fleet_hold(g, NAN, 2, 10, 0, 1, &err), RESPITE_E_INVALID_TIME);
    assert_int_equal(respite_gate_fleet_hold(g, 5, 2, 10, 0, -1, &err), RESPITE_E_INVALID_TIME);
    assert_int_equal(respite_gate_fleet_resume(g, INFINITY, &err), RESPITE_E_INVALID_TIME);
    assert_int_equal(respite_gate_get_state(g, 1.0, NULL), RESPITE_GATE_CLOSED);
    respite_gate_free(g);
}

/* F5 on a host-shared gate (section 9): every process's handle is held. */
static void test_f5_hold_on_a_shared_gate(void **state)
{
    (void)state;
    char dir[] = "/tmp/respite-fleet-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char extra[128];
    snprintf(extra, sizeof extra, "shared_path=%s/gates", dir);
    respite_gate *a = fleet_local_gate(extra), *b = fleet_local_gate(extra);
    respite_gate_fleet_hold(a, 4.0, 3, 10.0, 0, 1.0, NULL);
    assert_int_equal(check(b, 2.0).allowed, 0);
    respite_event ev;
    assert_int_equal(next_event_type(b, &ev), RESPITE_EVENT_FLEET_PAUSED);
    assert_int_equal(ev.count, 3);
    respite_gate_fleet_resume(a, 2.5, NULL);
    assert_int_equal(check(b, 2.5).allowed, 1);
    respite_gate_free(a);
    respite_gate_free(b);
    char path[160];
    snprintf(path, sizeof path, "%s/gates", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f5_hold_opens_a_closed_gate),
        cmocka_unit_test(test_f5_f7_hold_moves_an_open_pause),
        cmocka_unit_test(test_f7_hold_while_probing),
        cmocka_unit_test(test_f6_resume),
        cmocka_unit_test(test_f10_f11_notes),
        cmocka_unit_test(test_f3_observer),
        cmocka_unit_test(test_hooks_bad_input),
        cmocka_unit_test(test_f5_hold_on_a_shared_gate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

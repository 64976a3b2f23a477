/* A gate shared by a host's processes (docs/spec.md section 9): every test
 * name carries the rule id it checks. Each test works in its own temporary
 * directory; processes are real (fork), and one is killed holding the lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "respite.h"

/* ------------------------------------------------------------ helpers */

static char dir[64];
static char file[128];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/respite-shared-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(file, sizeof file, "%s/gates", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    unlink(file);
    return rmdir(dir);
}

/* Gate settings from "name", value pairs ended by NULL: a value is a
 * string for name and shared_path, else a double. */
static respite_settings *settings_v(va_list ap)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    assert_non_null(s);
    for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *)) {
        int rc;
        if (strcmp(name, "name") == 0 || strcmp(name, "shared_path") == 0)
            rc = respite_settings_set_text(s, name, va_arg(ap, const char *), &err);
        else
            rc = respite_settings_set_number(s, name, va_arg(ap, double), &err);
        if (rc != RESPITE_OK)
            fail_msg("setting %s: %s", name, err.message);
    }
    return s;
}

/* A gate, or NULL with *err filled. */
static respite_gate *try_gate(respite_error *err, ...)
{
    va_list ap;
    va_start(ap, err);
    respite_settings *s = settings_v(ap);
    va_end(ap);
    respite_gate *g = respite_gate_new(s, err);
    respite_settings_free(s);
    return g;
}

#define TRY_GATE(err, ...) try_gate(err, __VA_ARGS__, (const char *)NULL)

static respite_gate *must(respite_gate *g, const respite_error *err)
{
    if (!g)
        fail_msg("gate_new: %s", err->message);
    return g;
}

#define GATE(...) must(TRY_GATE(&err_, __VA_ARGS__), &err_)
#define GATE_SETUP respite_error err_ = {0}

/* The settings most tests share: N 3 within 100 s, R 10, one probe, T 1000. */
#define COMMON(name_)                                                                                    \
    "shared_path", file, "name", name_, "failures_to_enter_recovery", 3.0, "recovery_seconds", 10.0, \
        "probe_timeout_seconds", 1000.0, "seed", 42.0, "jitter", 0.5

static respite_decision check_at(respite_gate *g, double t)
{
    respite_decision d;
    respite_error err = {0};
    if (respite_gate_check(g, t, &d, &err) != RESPITE_OK)
        fail_msg("check: %s", err.message);
    return d;
}

static void report(respite_gate *g, int64_t permit, int outcome, double t)
{
    respite_error err = {0};
    if (respite_gate_report(g, permit, outcome, 0.0, t, &err) != RESPITE_OK)
        fail_msg("report: %s", err.message);
}

static void fail_at(respite_gate *g, double t)
{
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, t);
}

static respite_gate_stats stats_of(respite_gate *g)
{
    respite_gate_stats st;
    assert_int_equal(respite_gate_stats_get(g, &st, NULL), RESPITE_OK);
    return st;
}

static int next_type(respite_gate *g)
{
    respite_event ev;
    int rc = respite_gate_next_event(g, &ev, NULL);
    assert_true(rc >= 0);
    return rc ? ev.type : -1;
}

static void wait_child(pid_t pid, int want_status)
{
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (want_status >= 0) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != want_status)
            fail_msg("child ended with status %#x, want exit %d", status, want_status);
    }
}

/* ------------------------------------------------------------- layout */

static void test_H3_capacity(void **state)
{
    (void)state;
    assert_int_equal(respite_shared_gate_capacity(), RESPITE_SHARED_GATE_SLOTS);
    assert_int_equal(RESPITE_SHARED_GATE_SLOTS, 64);
}

static void test_H2_first_opener_creates_the_file_mode_0600(void **state)
{
    (void)state;
    GATE_SETUP;
    struct stat st;
    assert_int_not_equal(stat(file, &st), 0);
    respite_gate *g = GATE(COMMON("cloud"));
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_string_equal(respite_gate_name(g), "cloud");
    respite_gate_free(g);
}

/* H2, H3: processes racing to create one file and claim one name all end
 * on the same slot; their failures add up in it. */
static void test_H2_openers_racing_to_create(void **state)
{
    (void)state;
    enum { RACERS = 8 };
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pids[RACERS];
    for (int i = 0; i < RACERS; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            close(go[1]);
            char byte;
            if (read(go[0], &byte, 1) != 0) /* all start when the pipe closes */
                _exit(4);
            respite_error err = {0};
            respite_gate *g = TRY_GATE(&err, "shared_path", file, "name", "cloud", "failures_to_enter_recovery",
                                       100.0);
            if (!g)
                _exit(1);
            int rc = respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, 1.0, &err);
            respite_gate_free(g);
            _exit(rc == RESPITE_OK ? 0 : 2);
        }
    }
    close(go[0]);
    close(go[1]);
    for (int i = 0; i < RACERS; i++)
        wait_child(pids[i], 0);
    respite_shared_gate_info info[2];
    int count = 0;
    respite_error err = {0};
    assert_int_equal(respite_shared_gates_read(file, 1.0, info, 2, &count, &err), RESPITE_OK);
    assert_int_equal(count, 1);
    assert_int_equal(info[0].window_failures, RACERS);
    assert_int_equal(info[0].stats.counted_failures, RACERS);
    assert_int_equal(info[0].stats.reported, RACERS);
}

static void test_H1_not_a_gate_file(void **state)
{
    (void)state;
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "hello, world\n", 13), 13);
    close(fd);
    respite_error err = {0};
    assert_null(TRY_GATE(&err, COMMON("cloud")));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    char want[256];
    snprintf(want, sizeof want, "shared gate file %s is not a respite gate file", file);
    assert_string_equal(err.message, want);
}

static void test_H1_another_layout_version(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate_free(GATE(COMMON("cloud")));
    int fd = open(file, O_RDWR);
    assert_true(fd >= 0);
    uint32_t version = 3;
    assert_int_equal(pwrite(fd, &version, sizeof version, 8), (ssize_t)sizeof version);
    close(fd);
    respite_error err = {0};
    assert_null(TRY_GATE(&err, COMMON("cloud")));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    char want[256];
    snprintf(want, sizeof want, "shared gate file %s has layout version 3; this library reads version 2", file);
    assert_string_equal(err.message, want);
    int count = -1;
    assert_int_equal(respite_shared_gates_read(file, 0.0, NULL, 0, &count, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, want);
}

static void test_H2_a_file_never_initialised(void **state)
{
    (void)state;
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd); /* empty: its creator "died" before sizing it */
    respite_error err = {0};
    assert_null(TRY_GATE(&err, COMMON("cloud")));
    char want[256];
    snprintf(want, sizeof want,
             "shared gate file %s is not initialised (its creator may have died while creating it; remove the "
             "file)",
             file);
    assert_string_equal(err.message, want);
}

static void test_H1_a_directory_that_does_not_exist(void **state)
{
    (void)state;
    respite_error err = {0};
    assert_null(TRY_GATE(&err, "shared_path", "/nonexistent-respite/x", "name", "cloud"));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "cannot open shared gate file /nonexistent-respite/x: No such file or directory");
}

static void test_H3_name_required(void **state)
{
    (void)state;
    respite_error err = {0};
    assert_null(TRY_GATE(&err, "shared_path", file));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.setting, "name");
    assert_string_equal(err.message,
                        "name must not be empty when shared_path is set: it selects the gate's slot in the file");
    struct stat st;
    assert_int_not_equal(stat(file, &st), 0); /* nothing was created */
}

static void test_H3_a_full_file(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *gates[RESPITE_SHARED_GATE_SLOTS];
    for (int i = 0; i < RESPITE_SHARED_GATE_SLOTS; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", i);
        gates[i] = GATE("shared_path", file, "name", name);
    }
    respite_error err = {0};
    assert_null(TRY_GATE(&err, "shared_path", file, "name", "one-more"));
    char want[256];
    snprintf(want, sizeof want, "shared gate file %s has no free slot for gate \"one-more\" (64 gates already)", file);
    assert_string_equal(err.message, want);
    for (int i = 0; i < RESPITE_SHARED_GATE_SLOTS; i++)
        respite_gate_free(gates[i]);
    /* The slots stay taken (H10): the names still open. */
    respite_gate_free(GATE("shared_path", file, "name", "g7"));
}

/* ----------------------------------------------------------- settings */

static void test_H4_mismatch_lists_every_difference(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *g = GATE("shared_path", file, "name", "cloud", "probes", 1.0, "recovery_seconds", 60.0);
    respite_error err = {0};
    assert_null(TRY_GATE(&err, "shared_path", file, "name", "cloud", "probes", 2.0, "recovery_seconds", 30.0,
                         "count_all_failures", 1.0));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    char want[512];
    snprintf(want, sizeof want,
             "gate \"cloud\" in %s has recovery_seconds 60, probes 1 and count_all_failures false; these settings "
             "ask for recovery_seconds 30, probes 2 and count_all_failures true",
             file);
    assert_string_equal(err.message, want);
    /* Same settings attach; another name is another slot with its own. */
    respite_gate_free(GATE("shared_path", file, "name", "cloud", "probes", 1.0, "recovery_seconds", 60.0));
    respite_gate_free(GATE("shared_path", file, "name", "other", "probes", 2.0));
    respite_gate_free(g);
    /* A slot keeps its settings after every handle is gone (H10). */
    assert_null(TRY_GATE(&err, "shared_path", file, "name", "cloud", "probes", 3.0));
    snprintf(want, sizeof want, "gate \"cloud\" in %s has probes 1; these settings ask for probes 3", file);
    assert_string_equal(err.message, want);
}

/* ---------------------------------------------------- state machine */

/* The same script on an in-process gate and on two handles of one slot,
 * the handles taking turns: every observation is the same (H5). */
static void test_H5_two_handles_alternate_as_one_gate(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *one = GATE("name", "cloud", "failures_to_enter_recovery", 3.0, "recovery_seconds", 10.0,
                             "probe_timeout_seconds", 1000.0, "seed", 42.0, "jitter", 0.5);
    respite_gate *h[2] = {GATE(COMMON("cloud")), GATE(COMMON("cloud"))};
    const double times[] = {0, 1, 2, 3, 5, 9, 12, 12.5, 13, 14, 30, 31, 32, 33, 60, 61};
    int turn = 0;
    int probes_seen = 0;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        double t = times[i];
        respite_decision a = check_at(one, t), b = check_at(h[turn], t);
        assert_int_equal(a.allowed, b.allowed);
        assert_int_equal(a.probe, b.probe);
        assert_true(a.permit == b.permit);
        assert_true(a.retry_after == b.retry_after);
        probes_seen += b.probe;
        turn ^= 1;
        /* Fail everything but the probe at 30 and the calls after it. */
        int outcome = t >= 30 ? RESPITE_OUTCOME_SUCCESS : RESPITE_OUTCOME_SERVER_ERROR;
        if (b.allowed) {
            report(one, a.permit, outcome, t);
            report(h[turn], b.permit, outcome, t);
        }
        assert_int_equal(respite_gate_get_state(one, t, NULL), respite_gate_get_state(h[turn], t, NULL));
        turn ^= 1;
    }
    assert_true(probes_seen >= 2);
    respite_gate_stats x = stats_of(one), y = stats_of(h[0]);
    assert_int_equal(x.admitted, y.admitted);
    assert_int_equal(x.refused, y.refused);
    assert_int_equal(x.reported, y.reported);
    assert_int_equal(x.counted_failures, y.counted_failures);
    assert_int_equal(x.trips, y.trips);
    assert_int_equal(x.probes, y.probes);
    assert_int_equal(x.generation, y.generation);
    assert_true(x.delay == y.delay);
    /* Every event, in order, on the in-process gate and on each handle. */
    for (;;) {
        int type = next_type(one);
        assert_int_equal(next_type(h[0]), type);
        assert_int_equal(next_type(h[1]), type);
        if (type < 0)
            break;
    }
    respite_gate_free(h[0]);
    respite_gate_free(h[1]);
    respite_gate_free(one);
}

/* One probe for the whole host: a second process is refused while the
 * first holds the probe (H5, G7). */
static void test_H5_two_processes_one_probe(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *g = GATE(COMMON("cloud"), "jitter", 0.0);
    for (int i = 0; i < 3; i++)
        fail_at(g, 1.0);
    assert_int_equal(respite_gate_get_state(g, 1.0, NULL), RESPITE_GATE_OPEN);
    respite_decision d = check_at(g, 11.0);
    assert_true(d.probe);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_error err = {0};
        respite_gate *c = TRY_GATE(&err, COMMON("cloud"), "jitter", 0.0);
        respite_decision e;
        int ok = c && respite_gate_check(c, 12.0, &e, &err) == RESPITE_OK && !e.allowed && e.retry_after == 999.0;
        /* The probe's success (from the parent) closes the gate for the child too. */
        _exit(ok ? 0 : 1);
    }
    wait_child(pid, 0);
    report(g, d.permit, RESPITE_OUTCOME_SUCCESS, 13.0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_error err = {0};
        respite_gate *c = TRY_GATE(&err, COMMON("cloud"), "jitter", 0.0);
        respite_decision e;
        _exit(c && respite_gate_check(c, 14.0, &e, &err) == RESPITE_OK && e.allowed && !e.probe ? 0 : 1);
    }
    wait_child(pid, 0);
    respite_gate_free(g);
}

/* H10: the slot's state outlives its handles. */
static void test_H10_free_detaches_and_the_state_stays(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *g = GATE(COMMON("cloud"));
    for (int i = 0; i < 3; i++)
        fail_at(g, 1.0);
    respite_gate_free(g);
    g = GATE(COMMON("cloud"));
    respite_decision d = check_at(g, 2.0);
    assert_false(d.allowed);
    assert_true(d.retry_after > 0.0);
    assert_int_equal(stats_of(g).generation, 2);
    assert_int_equal(stats_of(g).counted_failures, 3);
    respite_gate_free(g);
}

/* ------------------------------------------------- processes dying */

static void kill_myself(const respite_event *event, void *user_data)
{
    (void)event;
    (void)user_data;
    raise(SIGKILL); /* inside the callback: the slot's lock is held */
}

/* H6: a process killed holding the slot's lock does not stop the others. */
static void test_H6_holder_killed_inside_the_lock(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *g = GATE(COMMON("cloud"), "jitter", 0.0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_error err = {0};
        respite_gate *c = TRY_GATE(&err, COMMON("cloud"), "jitter", 0.0);
        if (!c)
            _exit(2);
        respite_gate_set_event_callback(c, kill_myself, NULL, NULL);
        for (int i = 0; i < 3; i++)
            fail_at(c, 1.0); /* the third opens the gate: the callback kills us */
        _exit(3);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    /* The next locked call finds the owner dead, repairs, and goes on. */
    assert_int_equal(respite_gate_get_state(g, 2.0, NULL), RESPITE_GATE_OPEN);
    respite_decision d = check_at(g, 2.0);
    assert_false(d.allowed);
    assert_true(d.retry_after == 9.0);
    d = check_at(g, 11.0);
    assert_true(d.probe);
    report(g, d.permit, RESPITE_OUTCOME_SUCCESS, 11.5);
    assert_int_equal(respite_gate_get_state(g, 12.0, NULL), RESPITE_GATE_CLOSED);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.probes_outstanding, 0);
    assert_int_equal(st.trips, 1);
    respite_gate_free(g);
}

/* H6: holders killed inside the lock again and again; each time the next
 * caller repairs the slot and every completed change is kept. */
static void test_H6_holders_killed_in_a_loop(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *g = GATE(COMMON("cloud"));
    for (int i = 0; i < 20; i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            respite_error err = {0};
            respite_gate *c = TRY_GATE(&err, COMMON("cloud"));
            if (!c)
                _exit(2);
            respite_gate_set_event_callback(c, kill_myself, NULL, NULL);
            respite_gate_reset(c, 1.0, &err); /* its reset event kills it, lock held */
            _exit(3);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        fail_at(g, 1.0); /* takes the lock the child died holding */
        assert_int_equal(stats_of(g).generation, 2 + i);
    }
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.state, RESPITE_GATE_CLOSED);
    assert_int_equal(st.window_failures, 1); /* each reset emptied the window: the last failure */
    assert_int_equal(st.counted_failures, 20);
    respite_gate_free(g);
}

/* H7: the probe of a process that has gone is lost like a timed-out one;
 * a live owner's probe keeps its lease. */
static void test_H7_a_dead_probe_owner_loses_the_lease(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *g = GATE(COMMON("cloud"), "jitter", 0.0);
    for (int i = 0; i < 3; i++)
        fail_at(g, 0.0);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_error err = {0};
        respite_gate *c = TRY_GATE(&err, COMMON("cloud"), "jitter", 0.0);
        respite_decision d;
        if (!c || respite_gate_check(c, 10.0, &d, &err) != RESPITE_OK || !d.probe)
            _exit(1);
        char byte = 'p';
        if (write(go[1], &byte, 1) != 1)
            _exit(1);
        pause(); /* holds the probe until killed */
        _exit(0);
    }
    char byte;
    assert_int_equal(read(go[0], &byte, 1), 1);
    respite_decision d = check_at(g, 11.0); /* the owner lives: its lease holds */
    assert_false(d.allowed);
    assert_true(d.retry_after == 999.0);
    kill(pid, SIGKILL);
    wait_child(pid, -1);
    d = check_at(g, 12.0); /* lost at 12: reopened for R */
    assert_false(d.allowed);
    assert_true(d.retry_after == 10.0);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.probe_timeouts, 1);
    assert_int_equal(st.state, RESPITE_GATE_OPEN);
    assert_int_equal(st.probes_outstanding, 0);
    assert_int_equal(next_type(g), RESPITE_EVENT_RECOVERY_STARTED);
    assert_int_equal(next_type(g), RESPITE_EVENT_PROBING);
    respite_event ev;
    assert_int_equal(respite_gate_next_event(g, &ev, NULL), 1);
    assert_int_equal(ev.type, RESPITE_EVENT_RECOVERY_EXTENDED);
    assert_true(ev.at == 12.0);
    close(go[0]);
    close(go[1]);
    respite_gate_free(g);
}

/* ------------------------------------------------- statistics, events */

static void test_H8_statistics_fold_across_processes(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *a = GATE(COMMON("cloud")), *b = GATE(COMMON("cloud"));
    for (int i = 0; i < 5; i++)
        check_at(a, 1.0);
    for (int i = 0; i < 4; i++)
        report(b, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SUCCESS, 1.0);
    /* One process: exact at once, whichever handle asks. */
    assert_int_equal(stats_of(b).admitted, 5);
    assert_int_equal(stats_of(a).reported, 4);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_error err = {0};
        respite_gate *c = TRY_GATE(&err, COMMON("cloud"));
        if (!c)
            _exit(1);
        respite_decision d;
        for (int i = 0; i < 7; i++)
            respite_gate_check(c, 2.0, &d, &err);
        respite_gate_free(c); /* folds */
        _exit(0);
    }
    wait_child(pid, 0);
    respite_gate_stats st = stats_of(a);
    assert_int_equal(st.admitted, 12);
    assert_int_equal(st.reported, 4);
    assert_int_equal(st.refused, 0);
    respite_gate_free(a);
    respite_gate_free(b);
}

/* H11: a handle used in a forked child counts the child's calls once, and
 * the parent's unfolded calls stay the parent's. */
static void test_H11_a_handle_used_after_fork(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *g = GATE(COMMON("cloud"));
    for (int i = 0; i < 3; i++)
        check_at(g, 1.0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_decision d;
        for (int i = 0; i < 2; i++)
            respite_gate_check(g, 2.0, &d, NULL);
        for (int i = 0; i < 3; i++)
            respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, 2.0, NULL);
        respite_gate_stats st;
        respite_gate_stats_get(g, &st, NULL);
        /* The child's two checks folded; the parent's three not yet. */
        _exit(st.admitted == 2 && st.state == RESPITE_GATE_OPEN ? 0 : 1);
    }
    wait_child(pid, 0);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.admitted, 5);
    assert_int_equal(st.state, RESPITE_GATE_OPEN);
    assert_int_equal(st.counted_failures, 3);
    respite_gate_free(g);
}

static int callback_count;

static void count_event(const respite_event *event, void *user_data)
{
    (void)event;
    (void)user_data;
    callback_count++;
}

static void test_H9_every_handle_sees_every_event_once(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *a = GATE(COMMON("cloud")), *b = GATE(COMMON("cloud"));
    respite_gate_set_event_callback(a, count_event, NULL, NULL);
    callback_count = 0;
    for (int i = 0; i < 3; i++)
        fail_at(b, 1.0); /* b's call: a's callback does not fire */
    assert_int_equal(callback_count, 0);
    assert_int_equal(respite_gate_events_pending(a), 1);
    assert_int_equal(respite_gate_events_pending(b), 1);
    respite_event ev;
    assert_int_equal(respite_gate_next_event(a, &ev, NULL), 1);
    assert_int_equal(ev.type, RESPITE_EVENT_RECOVERY_STARTED);
    assert_string_equal(ev.source, "cloud");
    assert_int_equal(ev.failures, 3);
    char line[256];
    respite_event_message(&ev, line, sizeof line);
    assert_non_null(strstr(line, "cloud: recovery started: 3 failures within 100s; requests paused for "));
    assert_int_equal(respite_gate_events_pending(a), 0);
    assert_int_equal(respite_gate_events_pending(b), 1);
    assert_int_equal(next_type(b), RESPITE_EVENT_RECOVERY_STARTED);
    assert_int_equal(next_type(b), -1);
    /* A process's reset reaches both; a's own call fires a's callback. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_error err = {0};
        respite_gate *c = TRY_GATE(&err, COMMON("cloud"));
        _exit(c && respite_gate_reset(c, 2.0, &err) == RESPITE_OK ? 0 : 1);
    }
    wait_child(pid, 0);
    assert_int_equal(next_type(a), RESPITE_EVENT_RESET);
    assert_int_equal(next_type(b), RESPITE_EVENT_RESET);
    assert_int_equal(respite_gate_reset(a, 3.0, NULL), RESPITE_OK);
    assert_int_equal(callback_count, 1);
    /* A handle opened now starts at the newest event. */
    respite_gate *late = GATE(COMMON("cloud"));
    assert_int_equal(respite_gate_events_pending(late), 0);
    /* Falling behind by more than the ring counts the missed ones. */
    for (int i = 0; i < 70; i++)
        respite_gate_reset(a, 4.0, NULL);
    assert_int_equal(respite_gate_events_pending(late), 64);
    assert_int_equal(stats_of(late).events_dropped, 6);
    assert_int_equal(stats_of(b).events_dropped, 7); /* b had the 3.0 reset unread too */
    int taken = 0;
    while (next_type(late) >= 0)
        taken++;
    assert_int_equal(taken, 64);
    assert_int_equal(stats_of(late).events_dropped, 6);
    respite_gate_free(late);
    respite_gate_free(a);
    respite_gate_free(b);
}

/* ------------------------------------------------------------ reading */

static void test_H12_read_a_file_without_attaching(void **state)
{
    (void)state;
    GATE_SETUP;
    respite_gate *a = GATE(COMMON("cloud"), "jitter", 0.0);
    respite_gate *b = GATE("shared_path", file, "name", "billing");
    for (int i = 0; i < 3; i++)
        fail_at(a, 5.0);
    check_at(b, 5.0);
    fail_at(b, 5.0);
    respite_shared_gate_info info[4];
    int count = 0;
    respite_error err = {0};
    assert_int_equal(respite_shared_gates_read(file, 8.0, info, 4, &count, &err), RESPITE_OK);
    assert_int_equal(count, 2);
    assert_string_equal(info[0].name, "cloud");
    assert_int_equal(info[0].state, RESPITE_GATE_OPEN);
    assert_true(info[0].pause_left == 7.0);
    assert_int_equal(info[0].generation, 2);
    assert_int_equal(info[0].stats.trips, 1);
    assert_string_equal(info[1].name, "billing");
    assert_int_equal(info[1].state, RESPITE_GATE_CLOSED);
    assert_int_equal(info[1].window_failures, 1);
    assert_int_equal(info[1].stats.admitted, 1); /* folded by the failure's slow path */
    /* As at a later time: probing, without changing the slot. */
    assert_int_equal(respite_shared_gates_read(file, 16.0, info, 1, &count, &err), RESPITE_OK);
    assert_int_equal(count, 2);
    assert_int_equal(info[0].state, RESPITE_GATE_PROBING);
    assert_true(info[0].pause_left == 0.0);
    assert_int_equal(stats_of(a).state, RESPITE_GATE_OPEN);
    /* Failures leave the window as time passes (W 100). */
    assert_int_equal(respite_shared_gates_read(file, 200.0, info, 4, &count, &err), RESPITE_OK);
    assert_int_equal(info[1].window_failures, 0);
    respite_gate_free(a);
    respite_gate_free(b);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none", dir);
    assert_int_equal(respite_shared_gates_read(missing, 0.0, info, 4, &count, &err), RESPITE_E_INVALID_ARGUMENT);
    char want[256];
    snprintf(want, sizeof want, "cannot open shared gate file %s: No such file or directory", missing);
    assert_string_equal(err.message, want);
    assert_int_equal(respite_shared_gates_read(file, NAN, info, 4, &count, &err), RESPITE_E_INVALID_TIME);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, make_dir, remove_dir)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_H3_capacity),
        T(test_H2_first_opener_creates_the_file_mode_0600),
        T(test_H2_openers_racing_to_create),
        T(test_H1_not_a_gate_file),
        T(test_H1_another_layout_version),
        T(test_H2_a_file_never_initialised),
        T(test_H1_a_directory_that_does_not_exist),
        T(test_H3_name_required),
        T(test_H3_a_full_file),
        T(test_H4_mismatch_lists_every_difference),
        T(test_H5_two_handles_alternate_as_one_gate),
        T(test_H5_two_processes_one_probe),
        T(test_H10_free_detaches_and_the_state_stays),
        T(test_H6_holder_killed_inside_the_lock),
        T(test_H6_holders_killed_in_a_loop),
        T(test_H7_a_dead_probe_owner_loses_the_lease),
        T(test_H8_statistics_fold_across_processes),
        T(test_H11_a_handle_used_after_fork),
        T(test_H9_every_handle_sees_every_event_once),
        T(test_H12_read_a_file_without_attaching),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

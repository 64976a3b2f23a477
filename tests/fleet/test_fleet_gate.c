/* The fleet gate (docs/spec.md section 11) against a real redis-server on
 * 127.0.0.1, with hosts as separate processes with distinct host ids. */
#include "fleet_test_util.h"

#include <hiredis.h>

#define REFRESH 0.1
#define FLEET_PAIRS "fleet_quorum=2,fleet_refresh_seconds=0.1"

static int redis_port;
static pid_t redis_pid;

static int setup(void **state)
{
    (void)state;
    redis_port = free_port();
    redis_pid = redis_start(redis_port);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hosts_kill();
    if (redis_pid > 0)
        process_kill(redis_pid);
    redis_pid = 0;
    return 0;
}

/* F12: the fleet as `respite gates` reads it, without joining. */
static respite_fleet_info fleet_read(const char *name, int port)
{
    char pairs[100];
    snprintf(pairs, sizeof pairs, "fleet_url=redis://127.0.0.1:%d", port);
    respite_settings *f = settings_of("fleet", pairs);
    respite_fleet_info info;
    respite_error err;
    respite_error_clear(&err);
    if (respite_fleet_read(f, name, &info, &err) != RESPITE_OK)
        fail_msg("respite_fleet_read: %s", err.message);
    respite_settings_free(f);
    return info;
}

static int connected(int count)
{
    for (int i = 0; i < count; i++)
        if (!area->host[i].view.connected)
            return 0;
    return 1;
}

static int events_everywhere(int count, int type, int want)
{
    for (int i = 0; i < count; i++)
        if (atomic_load(&area->host[i].events[type]) < want)
            return 0;
    return 1;
}

/* Runs HOST_LATENCY on hosts 0..count-1 for `seconds` (started already). */
static void latency_stop(int count)
{
    atomic_store(&area->stop, 1);
    for (int i = 0; i < count; i++)
        host_wait(i, 5.0);
    atomic_store(&area->stop, 0);
}

/* No call waited on the store: 99% under 1 ms, none near a Redis timeout. */
static void assert_no_call_waited(int count)
{
    for (int i = 0; i < count; i++) {
        double p99 = host_latency_quantile(i, 0.99), max = host_latency_max(i);
        printf("host %d: %ld calls, p99 admit+report < %.1f us, max < %.1f us\n", i,
               atomic_load(&area->host[i].calls), p99 * 1e6, max * 1e6);
        assert_true(atomic_load(&area->host[i].calls) > 1000);
        assert_true(p99 < 0.001);
        assert_true(max < REFRESH); /* a wait on Redis would last its timeout, REFRESH */
        host_latency_clear(i);
    }
}

/* F4: one host's gate opening never pauses the others; a second host's
 * does, and a host that never failed is refused within
 * fleet_refresh_seconds + 100 ms, from its local gate. */
static void test_quorum_of_two(void **state)
{
    (void)state;
    hosts_start(3, "name=quorum,failures_to_enter_recovery=3,failures_window_seconds=10,recovery_seconds=5",
                FLEET_PAIRS, redis_port);
    assert_true(WAIT_FOR(connected(3), 5.0));
    host_do(0, HOST_FAIL, 3, 5.0);
    assert_int_equal(host_do(0, HOST_ADMIT, 0, 5.0), 0); /* its own gate opened */
    sleep_for(5 * REFRESH);
    assert_int_equal(host_do(1, HOST_ADMIT, 0, 5.0), 1);
    assert_int_equal(host_do(2, HOST_ADMIT, 0, 5.0), 1);
    assert_int_equal(area->host[2].view.hosts_opened, 1);
    assert_int_equal(area->host[2].view.paused, 0);
    respite_fleet_info info = fleet_read("quorum", redis_port);
    assert_int_equal(info.paused, 0);
    assert_int_equal(info.hosts, 1);
    assert_string_equal(info.host[0].id, "host-0");
    assert_true(info.host[0].opened_ago >= 0.4 && info.host[0].opened_ago < 2.0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(atomic_load(&area->host[i].events[RESPITE_EVENT_FLEET_PAUSED]), 0);

    host_do(2, HOST_UNTIL_REFUSED, 3.0, 0);
    host_do(1, HOST_FAIL, 3, 5.0);
    double opened = respite_now();
    host_wait(2, 5.0);
    double refused = area->host[2].result;
    printf("host 2 refused %.1f ms after host 1's gate opened\n", (refused - opened) * 1e3);
    assert_true(refused > 0);
    assert_true(refused - opened <= REFRESH + 0.1);
    assert_true(WAIT_FOR(atomic_load(&area->host[2].events[RESPITE_EVENT_FLEET_PAUSED]) == 1, 1.0));
    assert_int_equal(area->host[2].view.paused, 1);
    assert_int_equal(area->host[2].view.hosts_opened, 2);
    /* the fleet's pause is a pause of host 2's gate; host 1's own trip is one */
    assert_true(WAIT_FOR(area->host[2].stats.pauses == 1, 1.0)); /* its snapshot follows its events */
    assert_int_equal(area->host[2].stats.trips, 0);
    assert_true(area->host[2].stats.successes >= 1); /* its admitted calls, all successes */
    assert_int_equal(area->host[2].stats.successes, area->host[2].stats.reported);
    assert_true(WAIT_FOR(area->host[1].stats.pauses == 1, 1.0));
    assert_int_equal(area->host[1].stats.trips, 1);
    assert_int_equal(host_do(0, HOST_ADMIT, 0, 5.0), 0);
    info = fleet_read("quorum", redis_port);
    assert_int_equal(info.paused, 1);
    assert_true(info.pause_left > 4.0 && info.pause_left <= 5.0);
    assert_true(info.pause == 5.0);
    assert_int_equal(info.epoch, 1);
    assert_int_equal(info.hosts, 0); /* the openings that paused it are cleared (G3) */
    assert_string_equal(info.probe_host, "");
    /* F9: the pause is a key with a TTL (R = 5 s) */
    redisContext *c = redisConnect("127.0.0.1", redis_port);
    redisReply *r = redisCommand(c, "PTTL respite:{quorum}:pause");
    assert_true(r->integer > 4000 && r->integer <= 5000);
    freeReplyObject(r);
    redisFree(c);
    hosts_stop(3);
}

/* F7-F9: exactly one probe fleet-wide per pause, over 20 pauses; the probe
 * that succeeds ends the pause on every host. */
static void test_one_probe_per_pause(void **state)
{
    (void)state;
    const double recovery = 0.2, probe_call = 0.05;
    hosts_start(3, "name=probe,failures_to_enter_recovery=2,failures_window_seconds=10,recovery_seconds=0.2",
                FLEET_PAIRS, redis_port);
    assert_true(WAIT_FOR(connected(3), 5.0));
    for (int i = 0; i < 3; i++)
        host_do(i, HOST_OUTAGE, 0, 0);
    assert_true(WAIT_FOR(atomic_load(&area->probes) >= 21, 40.0));
    atomic_store(&area->service_up, 1); /* the next probe succeeds */
    assert_true(WAIT_FOR(!area->host[0].view.paused && !area->host[1].view.paused && !area->host[2].view.paused,
                         5.0));
    atomic_store(&area->stop, 1);
    for (int i = 0; i < 3; i++)
        host_wait(i, 5.0);
    atomic_store(&area->stop, 0);
    int probes = atomic_load(&area->probes);
    int by_host[3] = {0, 0, 0};
    double shortest = INFINITY;
    for (int k = 0; k < probes; k++) {
        by_host[area->probe_host[k]]++;
        if (k > 0 && area->probe_at[k] - area->probe_at[k - 1] < shortest)
            shortest = area->probe_at[k] - area->probe_at[k - 1];
    }
    printf("%d probes (hosts 0/1/2: %d/%d/%d), shortest gap %.0f ms\n", probes, by_host[0], by_host[1], by_host[2],
           shortest * 1e3);
    /* A second probe in the same pause would follow the first by far less
     * than the probe's call plus a whole pause. */
    assert_true(shortest >= probe_call + recovery * 0.9);
    /* The successful probe ended the pause everywhere. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(host_do(i, HOST_ADMIT, 0, 5.0), 1);
    hosts_stop(3);
}

/* F7: when the fleet's pause ends by its time, the host that takes the
 * probe lease logs probing (its gate probes, G7) and every other host,
 * still held, logs fleet_probing once per pause - however often the lease
 * passes between idle hosts; the probe's success then recovers them all. */
static int holder_of(int count)
{
    for (int i = 0; i < count; i++)
        if (area->host[i].view.holds_probe)
            return i;
    return -1;
}

static void test_pause_end_is_told_once_per_host(void **state)
{
    (void)state;
    hosts_start(3, "name=expiry,failures_to_enter_recovery=2,failures_window_seconds=10,recovery_seconds=0.5",
                FLEET_PAIRS, redis_port);
    assert_true(WAIT_FOR(connected(3), 5.0));
    for (int pause = 1; pause <= 2; pause++) {
        host_do(0, HOST_FAIL, 2, 5.0);
        host_do(1, HOST_FAIL, 2, 5.0);
        /* hosts 0 and 1 opened on their own; host 2 is paused by the fleet */
        assert_true(WAIT_FOR(atomic_load(&area->host[2].events[RESPITE_EVENT_FLEET_PAUSED]) == pause, 2.0));
        assert_true(WAIT_FOR(holder_of(3) >= 0, 3.0)); /* the pause's key expired: a host took the lease */
        int first = holder_of(3);
        assert_true(WAIT_FOR(events_everywhere(3, RESPITE_EVENT_FLEET_PROBING, pause - 1) &&
                                 atomic_load(&area->host[(first + 1) % 3].events[RESPITE_EVENT_FLEET_PROBING]) ==
                                     pause &&
                                 atomic_load(&area->host[(first + 2) % 3].events[RESPITE_EVENT_FLEET_PROBING]) ==
                                     pause,
                             1.0));
        assert_true(atomic_load(&area->host[first].events[RESPITE_EVENT_PROBING]) >= 1);
        /* idle hosts let the lease lapse (5 refreshes) and pass it on: told once all the same */
        sleep_for(15 * REFRESH);
        for (int i = 0; i < 3; i++) {
            int told = atomic_load(&area->host[i].events[RESPITE_EVENT_FLEET_PROBING]);
            printf("pause %d: host %d logged fleet_probing %d times, probing %d times\n", pause, i, told,
                   atomic_load(&area->host[i].events[RESPITE_EVENT_PROBING]));
            assert_true(told <= pause);
            assert_true(told >= (i == first ? pause - 1 : pause));
            assert_int_equal(area->host[i].view.paused, 1);
        }
        /* whichever host holds the lease now admits the probe; its success recovers every host (F6) */
        for (int i = 0; i < 3; i++)
            host_do(i, HOST_UNTIL_ADMITTED, 5.0, 0);
        for (int i = 0; i < 3; i++) {
            host_wait(i, 6.0);
            assert_true(area->host[i].result > 0);
        }
        assert_true(WAIT_FOR(events_everywhere(3, RESPITE_EVENT_RECOVERED, pause), 2.0));
    }
    hosts_stop(3);
}

/* F7: a host that dies holding the probe loses its lease; another host
 * probes, and its success ends the pause on every host still alive. */
static void test_probe_holder_dies(void **state)
{
    (void)state;
    hosts_start(3,
                "name=holder,failures_to_enter_recovery=2,failures_window_seconds=10,recovery_seconds=0.3,"
                "probe_timeout_seconds=1",
                FLEET_PAIRS, redis_port);
    assert_true(WAIT_FOR(connected(3), 5.0));
    atomic_store(&area->die_on_probe, 1);
    for (int i = 0; i < 3; i++)
        host_do(i, HOST_OUTAGE, 0, 0);
    assert_true(WAIT_FOR(atomic_load(&area->probes) >= 2, 10.0));
    int dead = area->probe_host[0];
    assert_int_not_equal(area->probe_host[1], dead);
    double gap = area->probe_at[1] - area->probe_at[0];
    printf("host %d died holding the probe; host %d probed %.0f ms later\n", dead, area->probe_host[1], gap * 1e3);
    assert_true(gap <= 1.0 + 5 * REFRESH + 0.3 + 1.0); /* its lease, then the next pause at most, and slack */
    atomic_store(&area->service_up, 1);
    assert_true(WAIT_FOR(!area->host[(dead + 1) % 3].view.paused && !area->host[(dead + 2) % 3].view.paused, 5.0));
    atomic_store(&area->stop, 1);
    for (int i = 0; i < 3; i++)
        if (i != dead) {
            host_wait(i, 5.0);
            assert_int_equal(host_do(i, HOST_ADMIT, 0, 5.0), 1);
        }
    hosts_stop(3);
}

/* F10, F11: Redis killed mid-run: calls keep their local behaviour and
 * never wait; every host says so once, and rejoins after a restart. */
static void test_redis_killed_and_restarted(void **state)
{
    (void)state;
    hosts_start(3, "name=killed,failures_to_enter_recovery=3,failures_window_seconds=30,recovery_seconds=5",
                FLEET_PAIRS, redis_port);
    assert_true(WAIT_FOR(connected(3), 5.0));
    for (int i = 0; i < 3; i++)
        host_do(i, HOST_LATENCY, 0, 0);
    sleep_for(0.5);
    process_kill(redis_pid);
    redis_pid = 0;
    assert_true(WAIT_FOR(events_everywhere(3, RESPITE_EVENT_FLEET_STORE_LOST, 1), 2.0));
    sleep_for(0.5);
    latency_stop(3);
    assert_no_call_waited(3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(atomic_load(&area->host[i].events[RESPITE_EVENT_FLEET_STORE_LOST]), 1); /* said once */

    /* Local behaviour: a host's own failures open its own gate. */
    host_do(0, HOST_FAIL, 3, 5.0);
    assert_int_equal(host_do(0, HOST_ADMIT, 0, 5.0), 0);
    assert_int_equal(host_do(1, HOST_ADMIT, 0, 5.0), 1);

    redis_pid = redis_start(redis_port);
    assert_true(WAIT_FOR(events_everywhere(3, RESPITE_EVENT_FLEET_REJOINED, 1) && connected(3), 3.0));
    /* Rejoined: host 0's opening was told on rejoining, so one more makes a quorum. */
    host_do(2, HOST_UNTIL_REFUSED, 3.0, 0);
    host_do(1, HOST_FAIL, 3, 5.0);
    host_wait(2, 5.0);
    assert_true(area->host[2].result > 0);
    hosts_stop(3);
}

/* F10: a Redis that accepts connections and never answers. */
static void test_redis_never_answers(void **state)
{
    (void)state;
    int port = free_port();
    pid_t silent = silent_listener_start(port);
    hosts_start(2, "name=silent,failures_to_enter_recovery=3,recovery_seconds=5", FLEET_PAIRS, port);
    for (int i = 0; i < 2; i++)
        host_do(i, HOST_LATENCY, 0, 0);
    assert_true(WAIT_FOR(events_everywhere(2, RESPITE_EVENT_FLEET_STORE_LOST, 1), 2.0));
    sleep_for(1.0);
    latency_stop(2);
    assert_no_call_waited(2);
    assert_int_equal(area->host[0].view.connected, 0);
    assert_true(area->host[0].view.failed_exchanges >= 2);
    host_do(0, HOST_FAIL, 3, 5.0);
    assert_int_equal(host_do(0, HOST_ADMIT, 0, 5.0), 0);
    assert_int_equal(host_do(1, HOST_ADMIT, 0, 5.0), 1);
    double start = respite_now();
    hosts_stop(2); /* freeing waits for one timeout at most */
    assert_true(respite_now() - start < 2.0);
    process_kill(silent);
}

/* F10, F11: a Redis that stops answering for a while (DEBUG SLEEP). */
static void test_redis_slow_for_a_while(void **state)
{
    (void)state;
    hosts_start(2, "name=slow,failures_to_enter_recovery=3,recovery_seconds=5", FLEET_PAIRS, redis_port);
    assert_true(WAIT_FOR(connected(2), 5.0));
    for (int i = 0; i < 2; i++)
        host_do(i, HOST_LATENCY, 0, 0);
    pid_t sleeper = fork();
    if (sleeper == 0) {
        redisContext *c = redisConnect("127.0.0.1", redis_port);
        redisReply *r = c && !c->err ? redisCommand(c, "DEBUG SLEEP 1.5") : NULL;
        _exit(r && r->type != REDIS_REPLY_ERROR ? 0 : 1);
    }
    assert_true(WAIT_FOR(events_everywhere(2, RESPITE_EVENT_FLEET_STORE_LOST, 1), 2.0));
    assert_true(WAIT_FOR(events_everywhere(2, RESPITE_EVENT_FLEET_REJOINED, 1), 4.0));
    latency_stop(2);
    assert_no_call_waited(2);
    int status = 0;
    waitpid(sleeper, &status, 0);
    assert_int_equal(WEXITSTATUS(status), 0);
    hosts_stop(2);
}

/* F1, F2: what a fleet gate refuses to be made from. */
static void test_bad_settings(void **state)
{
    (void)state;
    struct {
        const char *gate, *fleet, *setting, *message;
    } cases[] = {
        {"failures_to_enter_recovery=3", "fleet_url=redis://127.0.0.1:6379", "name",
         "name must not be empty for a fleet gate: it names the gate's keys in Redis"},
        {"name=x,probes=0", "fleet_url=redis://127.0.0.1:6379", "probes",
         "probes must be 1 or more for a fleet gate: the fleet's pause ends by one host's probe (got 0)"},
        {"name=x,recover_never=true", "fleet_url=redis://127.0.0.1:6379", "recover_never",
         "recover_never must be false for a fleet gate: a fleet pause always ends"},
        {"name=x", "fleet_url=http://127.0.0.1:6379", "fleet_url",
         "fleet_url must be redis://host:port or redis://host:port/db, with an optional :password@ (got "
         "'http://127.0.0.1:6379')"},
        {"name=x", "fleet_quorum=2", "fleet_url",
         "fleet_url must be redis://host:port or redis://host:port/db, with an optional :password@ (got '')"},
        {"name=x", "fleet_url=redis://127.0.0.1", "fleet_url",
         "fleet_url must be redis://host:port or redis://host:port/db, with an optional :password@ (got "
         "'redis://127.0.0.1')"},
        {"name=x", "fleet_url=redis://127.0.0.1:6379/x", "fleet_url",
         "fleet_url must be redis://host:port or redis://host:port/db, with an optional :password@ (got "
         "'redis://127.0.0.1:6379/x')"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        respite_settings *g = settings_of("gate", cases[k].gate);
        respite_settings *f = settings_of("fleet", cases[k].fleet);
        respite_error err;
        respite_error_clear(&err);
        assert_null(respite_fleet_gate_new(g, f, &err));
        assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
        assert_string_equal(err.setting, cases[k].setting);
        assert_string_equal(err.message, cases[k].message);
        respite_settings_free(g);
        respite_settings_free(f);
    }
    /* Settings of the wrong component, and none. */
    respite_settings *g = settings_of("gate", "name=x");
    respite_error err;
    respite_error_clear(&err);
    assert_null(respite_fleet_gate_new(g, g, &err));
    assert_string_equal(err.message, "fleet_settings must be fleet settings (got gate settings)");
    assert_null(respite_fleet_gate_new(g, NULL, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    respite_settings_free(g);
    assert_int_equal(respite_fleet_gate_view(NULL, NULL, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "fleet gate is closed");
    /* F12: reading a fleet whose Redis is not there */
    char pairs[100];
    int port = free_port();
    snprintf(pairs, sizeof pairs, "fleet_url=redis://127.0.0.1:%d", port);
    respite_settings *f = settings_of("fleet", pairs);
    respite_fleet_info info;
    assert_int_equal(respite_fleet_read(f, "billing", &info, &err), RESPITE_E_TRANSPORT);
    char expected[200];
    snprintf(expected, sizeof expected, "cannot read the fleet of gate \"billing\" at 127.0.0.1:%d: Connection refused",
             port);
    assert_string_equal(err.message, expected);
    assert_int_equal(respite_fleet_read(f, "", &info, &err), RESPITE_E_INVALID_ARGUMENT);
    respite_settings_free(f);
    assert_null(respite_fleet_gate_gate(NULL));
    respite_fleet_gate_free(NULL);
}

/* F2: a password and a database in the URL; a wrong password is a store
 * that cannot be used (the gate still works, alone). */
static void test_url_with_password_and_db(void **state)
{
    (void)state;
    redisContext *c = redisConnect("127.0.0.1", redis_port);
    assert_true(c && !c->err);
    freeReplyObject(redisCommand(c, "CONFIG SET requirepass sesame"));
    redisFree(c);
    respite_settings *g = settings_of("gate", "name=pw,failures_to_enter_recovery=3");
    char pairs[200];
    snprintf(pairs, sizeof pairs, "fleet_host_id=h,fleet_url=redis://:sesame@127.0.0.1:%d/3", redis_port);
    respite_settings *f = settings_of("fleet", pairs);
    respite_fleet_gate *fleet = respite_fleet_gate_new(g, f, NULL);
    assert_non_null(fleet);
    respite_fleet_view view;
    assert_true(WAIT_FOR(respite_fleet_gate_view(fleet, &view, NULL) == RESPITE_OK && view.exchanges > 0, 3.0));
    assert_string_equal(view.host_id, "h");
    respite_fleet_gate_free(fleet);
    c = redisConnect("127.0.0.1", redis_port);
    freeReplyObject(redisCommand(c, "AUTH sesame"));
    freeReplyObject(redisCommand(c, "SELECT 3"));
    redisReply *r = redisCommand(c, "EXISTS respite:{pw}:state");
    assert_int_equal(r->integer, 1);
    freeReplyObject(r);
    redisFree(c);
    respite_settings_free(f);

    snprintf(pairs, sizeof pairs, "fleet_host_id=h,fleet_url=redis://:wrong@127.0.0.1:%d", redis_port);
    f = settings_of("fleet", pairs);
    fleet = respite_fleet_gate_new(g, f, NULL);
    assert_non_null(fleet);
    respite_gate *gate = respite_fleet_gate_gate(fleet);
    respite_event ev;
    int lost = 0;
    double until = respite_now() + 2.0;
    while (!lost && respite_now() < until) {
        while (respite_gate_next_event(gate, &ev, NULL) == 1)
            lost |= ev.type == RESPITE_EVENT_FLEET_STORE_LOST;
        sleep_for(0.01);
    }
    assert_true(lost);
    char line[256];
    respite_event_message(&ev, line, sizeof line);
    assert_string_equal(line, "pw: fleet store unreachable or slow: this host decides on its own gate");
    assert_true(respite_gate_admit(gate, respite_now(), NULL) > 0);
    respite_fleet_gate_free(fleet);
    respite_settings_free(f);
    respite_settings_free(g);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IONBF, 0);
    if (getenv("RESPITE_TEST_FILTER"))
        cmocka_set_test_filter(getenv("RESPITE_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_settings),
        cmocka_unit_test_setup_teardown(test_quorum_of_two, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_probe_per_pause, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probe_holder_dies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pause_end_is_told_once_per_host, setup, teardown),
        cmocka_unit_test_setup_teardown(test_redis_killed_and_restarted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_redis_never_answers, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_redis_slow_for_a_while, setup, teardown),
        cmocka_unit_test_setup_teardown(test_url_with_password_and_db, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The durable queue (spec section 10, L1-L9): every check of test_queue.c
 * again on files (L1), then what only a file has: ids across reopening,
 * figures that survive, leases, several processes, corruption, the layout
 * version, times across a reboot. */
#define QUEUE_TESTS_ON_FILE 1
#include "test_queue.c"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------- helpers */

static char *file_path(const char *name)
{
    static char path[400];
    snprintf(path, sizeof path, "%s/%s", queue_dir, name);
    return path;
}

/* A durable queue on `path` with @default-like numbers (and event_ttl). */
static respite_queue *open_queue_ttl(const char *path, int capacity, int retry_times, double lease_seconds, int ttl,
                                     respite_error *err)
{
    respite_policy *p = policy_of(capacity, retry_times, ttl);
    respite_settings *s = new_settings("queue");
    assert_int_equal(respite_settings_set_text(s, "queue_path", path, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "lease_seconds", lease_seconds, NULL), RESPITE_OK);
    respite_queue *q = respite_queue_new(p, s, err);
    respite_settings_free(s);
    respite_policy_free(p);
    return q;
}

static respite_queue *open_queue(const char *path, int capacity, int retry_times, double lease_seconds,
                                 respite_error *err)
{
    return open_queue_ttl(path, capacity, retry_times, lease_seconds, 0, err);
}

static respite_queue *must_open_ttl(const char *path, int capacity, int retry_times, double lease_seconds, int ttl)
{
    respite_error err;
    respite_error_clear(&err);
    respite_queue *q = open_queue_ttl(path, capacity, retry_times, lease_seconds, ttl, &err);
    if (!q)
        fail_msg("open %s: %s", path, err.message);
    return q;
}

static respite_queue *must_open(const char *path, int capacity, int retry_times, double lease_seconds)
{
    respite_error err;
    respite_error_clear(&err);
    respite_queue *q = open_queue(path, capacity, retry_times, lease_seconds, &err);
    if (!q)
        fail_msg("open %s: %s", path, err.message);
    return q;
}

/* Runs SQL on a queue file from outside, as another program would. */
static void sql_on(const char *path, const char *text)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", text, msg);
    sqlite3_close(db);
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* How many files in queue_dir start with prefix. */
static int files_starting(const char *prefix)
{
    char command[600];
    snprintf(command, sizeof command, "ls -1 '%s' | grep -c '^%s'", queue_dir, prefix);
    FILE *p = popen(command, "r");
    assert_non_null(p);
    int n = 0;
    if (fscanf(p, "%d", &n) != 1)
        n = 0;
    pclose(p);
    return n;
}

static int setup_dir(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(queue_dir, sizeof queue_dir, "%s/respite-durable-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(queue_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char command[400];
    snprintf(command, sizeof command, "rm -rf '%s'", queue_dir);
    return system(command) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- L1 */

/* The figures D9 and the tests compare (live_bytes is each handle's memory). */
static void expect_same_figures(const respite_queue_stats *a, const respite_queue_stats *b)
{
    assert_int_equal(a->accepted, b->accepted);
    assert_int_equal(a->delivered, b->delivered);
    assert_int_equal(a->dropped_capacity, b->dropped_capacity);
    assert_int_equal(a->expired, b->expired);
    assert_int_equal(a->retries_exhausted, b->retries_exhausted);
    assert_int_equal(a->discarded, b->discarded);
    assert_int_equal(a->pending, b->pending);
    assert_int_equal(a->in_flight, b->in_flight);
    assert_int_equal(a->refused_full, b->refused_full);
    assert_int_equal(a->refused_too_large, b->refused_too_large);
    assert_int_equal(a->refused_closed, b->refused_closed);
    assert_int_equal(a->retried, b->retried);
    assert_int_equal(a->pending_bytes, b->pending_bytes);
    assert_int_equal(a->in_flight_bytes, b->in_flight_bytes);
}

/* Random calls on a queue in memory and one on a file, side by side: every
 * answer, every event taken and every figure the same (L1). Two batches
 * may be out at once, freed in either order (D4's order among them). */
static void test_L1_a_file_answers_as_memory_does(void **state)
{
    (void)state;
    const char *overflows[] = {"drop_oldest", "drop_newest"};
    for (int mode = 0; mode < 2; mode++) {
        respite_queue *q[2];
        for (int k = 0; k < 2; k++) {
            respite_policy *p = policy_of(20, 2, 7);
            respite_settings *s = new_settings("queue");
            respite_settings_set_text(s, "overflow", overflows[mode], NULL);
            respite_settings_set_integer(s, "max_bytes", 300, NULL);
            char path[320];
            snprintf(path, sizeof path, "%s/alike-%d.db", queue_dir, mode);
            if (k == 1)
                respite_settings_set_text(s, "queue_path", path, NULL);
            q[k] = respite_queue_new(p, s, NULL);
            assert_non_null(q[k]);
            respite_settings_free(s);
            respite_policy_free(p);
        }
        respite_batch *out[2][2] = {{NULL, NULL}, {NULL, NULL}};
        uint64_t x = 99991 + (uint64_t)mode;
        double now = 0;
        for (int step = 0; step < 3000; step++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            now += (double)(x % 700) / 1000.0;
            int op = (int)(x % 9), slot = (int)(x >> 40) % 2;
            for (int k = 0; k < 2; k++) {
                respite_queue *qk = q[k];
                if (op <= 3) {
                    char text[64];
                    size_t n = (size_t)(x >> 20) % 60 + 1;
                    memset(text, 'a' + (int)(x % 26), n);
                    int rc = respite_queue_enqueue(qk, text, n, now, NULL);
                    static int first;
                    if (k == 0)
                        first = rc;
                    else
                        assert_int_equal(rc, first);
                } else if (op <= 5 && !out[k][slot]) {
                    out[k][slot] = respite_queue_take(qk, (int)(x >> 30) % 6 + 1, now, NULL);
                } else if (op <= 7 && out[k][slot]) {
                    respite_batch *b = out[k][slot];
                    for (int i = 0; i < respite_batch_count(b); i++)
                        if ((x >> (i + 3)) % 4)
                            respite_batch_settle(b, i, (int)((x >> (i + 7)) % 4), NULL);
                    respite_batch_free(b);
                    out[k][slot] = NULL;
                } else if (op == 8) {
                    respite_queue_expire(qk, now, NULL);
                }
            }
            for (int sl = 0; sl < 2; sl++) {
                respite_batch *a = out[0][sl], *b = out[1][sl];
                assert_int_equal(respite_batch_count(a), respite_batch_count(b));
                for (int i = 0; i < respite_batch_count(a); i++) {
                    assert_int_equal(respite_batch_event_id(a, i, NULL), respite_batch_event_id(b, i, NULL));
                    assert_string_equal(respite_batch_event_text(a, i, NULL), respite_batch_event_text(b, i, NULL));
                    assert_int_equal(respite_batch_event_attempts(a, i, NULL),
                                     respite_batch_event_attempts(b, i, NULL));
                    assert_true(respite_batch_event_age(a, i, now, NULL) == respite_batch_event_age(b, i, now, NULL));
                    assert_int_equal(respite_batch_event_disposition(a, i, NULL),
                                     respite_batch_event_disposition(b, i, NULL));
                }
            }
            respite_queue_stats sa = stats_of(q[0]), sb = stats_of(q[1]);
            expect_same_figures(&sa, &sb);
            assert_balanced(q[1]);
        }
        respite_queue_stats s = stats_of(q[1]);
        assert_true(s.delivered > 0 && s.expired > 0 && s.retried > 0 && s.retries_exhausted > 0);
        assert_true(s.dropped_capacity + s.refused_full > 0);
        for (int k = 0; k < 2; k++) {
            respite_batch_free(out[k][0]);
            respite_batch_free(out[k][1]);
            respite_queue_free(q[k]);
        }
    }
}

/* ---------------------------------------------------------------- L3 */

static void test_L3_ids_increase_and_carry_over_reopening(void **state)
{
    (void)state;
    /* In memory too: 1, 2, 3 in enqueue order. */
    respite_queue *m = respite_queue_new(NULL, NULL, NULL);
    put(m, "a", 0);
    put(m, "b", 0);
    respite_batch *b = respite_queue_take(m, 5, 0, NULL);
    assert_int_equal(respite_batch_event_id(b, 0, NULL), 1);
    assert_int_equal(respite_batch_event_id(b, 1, NULL), 2);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_batch_event_id(b, 2, &err), -1);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    respite_batch_free(b);
    respite_queue_free(m);

    const char *path = file_path("ids.db");
    respite_queue *q = must_open(path, 10, 0, 60);
    put(q, "a", 0);
    put(q, "b", 0);
    b = respite_queue_take(q, 5, 0, NULL);
    assert_int_equal(respite_batch_count(b), 2);
    assert_int_equal(respite_batch_event_id(b, 0, NULL), 1);
    assert_int_equal(respite_batch_event_id(b, 1, NULL), 2);
    respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_free(b);
    respite_queue_free(q);
    /* The file is empty now, yet ids are never reused. */
    q = must_open(path, 10, 0, 60);
    put(q, "c", 1);
    b = respite_queue_take(q, 5, 1, NULL);
    assert_int_equal(respite_batch_event_id(b, 0, NULL), 3);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "c");
    respite_batch_free(b);
    respite_queue_free(q);
}

/* A forked child cannot use its parent's handle (SQLite connections must
 * not cross fork()); freeing it there leaves the parent's file alone. */
static void test_L6_a_forked_child_cannot_use_the_parents_handle(void **state)
{
    (void)state;
    const char *path = file_path("fork.db");
    respite_queue *q = must_open(path, 10, 0, 60);
    put(q, "before", 0);
    pid_t child = fork();
    if (child == 0) {
        respite_error err;
        respite_error_clear(&err);
        int ok = respite_queue_enqueue(q, "x", 1, 1, &err) == RESPITE_E_CLOSED &&
                 strcmp(err.message, "queue belongs to the process that opened its file: this process was forked "
                                     "after; open the file again here") == 0 &&
                 respite_queue_pending(q, NULL) == -1 && respite_queue_wait(q, 1, 5, NULL) == -1 &&
                 respite_queue_take(q, 1, 1, NULL) == NULL;
        respite_queue_free(q);
        respite_queue *own = open_queue(path, 10, 0, 60, NULL); /* its own handle works */
        ok = ok && own && put(own, "child", 1) == RESPITE_OK;
        respite_queue_free(own);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(put(q, "after", 2), RESPITE_OK);
    respite_batch *b = respite_queue_take(q, 5, 2, NULL);
    assert_int_equal(respite_batch_count(b), 3);
    assert_string_equal(respite_batch_event_text(b, 1, NULL), "child");
    respite_batch_free(b);
    assert_balanced(q);
    respite_queue_free(q);
}

/* ---------------------------------------------------------------- L7 */

static void test_L7_figures_and_events_survive_reopening(void **state)
{
    (void)state;
    const char *path = file_path("survive.db");
    respite_queue *q = must_open(path, 3, 1, 60);
    for (int i = 0; i < 5; i++) { /* two evicted */
        char text[8];
        snprintf(text, sizeof text, "e%d", i);
        put(q, text, i);
    }
    respite_batch *b = respite_queue_take(q, 2, 5, NULL);
    respite_batch_settle(b, 0, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_settle(b, 1, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_free(b);
    respite_queue_stats before = stats_of(q);
    assert_int_equal(before.durable, 1);
    respite_queue_free(q);

    q = must_open(path, 3, 1, 60);
    respite_queue_stats after = stats_of(q);
    assert_int_equal(after.accepted, 5);
    assert_int_equal(after.dropped_capacity, 2);
    assert_int_equal(after.delivered, 1);
    assert_int_equal(after.retried, 1);
    assert_int_equal(after.pending, 2);
    assert_int_equal(after.pending_bytes, before.pending_bytes);
    assert_int_equal(after.in_flight, 0);
    assert_int_equal(after.corrupt_set_aside, 0);
    assert_balanced(q);
    /* The retried event is still first, with its attempt counted. */
    b = respite_queue_take(q, 5, 6, NULL);
    assert_int_equal(respite_batch_count(b), 2);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "e3");
    assert_int_equal(respite_batch_event_attempts(b, 0, NULL), 2);
    assert_true(respite_batch_event_age(b, 0, 6, NULL) == 3);
    assert_string_equal(respite_batch_event_text(b, 1, NULL), "e4");
    respite_batch_free(b);
    respite_queue_free(q);
}

/* ---------------------------------------------------------------- L5 */

/* counts.last_id, read from outside. */
static int64_t counts_last_id(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT last_id FROM counts", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return id;
}

/* An enqueue writes its row alone; its figures (accepted, pending, bytes)
 * follow from the rows, and survive reopening; removing the last row keeps
 * its id given (L3). */
static void test_L7_enqueues_are_counted_by_their_rows(void **state)
{
    (void)state;
    const char *path = file_path("rows.db");
    respite_queue *q = must_open(path, 10, 1, 60);
    put(q, "aa", 1);
    put(q, "bbb", 1);
    respite_batch *b = respite_queue_take(q, 1, 2, NULL);
    respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_free(b);
    assert_int_equal(counts_last_id(path), 2);
    put(q, "cccc", 3);
    put(q, "d", 3);
    assert_int_equal(counts_last_id(path), 2); /* the rows say it */
    respite_queue_free(q);

    q = must_open(path, 10, 1, 60);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted, 4);
    assert_int_equal(s.delivered, 1);
    assert_int_equal(s.pending, 3);
    assert_int_equal(s.pending_bytes, 8);
    /* The last row delivered, the two before it put back. */
    b = respite_queue_take(q, 5, 4, NULL);
    assert_int_equal(respite_batch_count(b), 3);
    assert_int_equal(respite_batch_event_id(b, 2, NULL), 4);
    respite_batch_settle(b, 2, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_settle(b, 0, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_settle(b, 1, RESPITE_DISPOSITION_RETRY, NULL);
    respite_batch_free(b);
    respite_queue_free(q);

    q = must_open(path, 10, 1, 60);
    s = stats_of(q);
    assert_int_equal(s.accepted, 4);
    assert_int_equal(s.pending, 2);
    assert_int_equal(s.pending_bytes, 7);
    put(q, "e", 5);
    s = stats_of(q);
    assert_int_equal(s.accepted, 5);
    assert_int_equal(s.pending_bytes, 8);
    b = respite_queue_take(q, 5, 5, NULL);
    assert_int_equal(respite_batch_count(b), 3);
    assert_int_equal(respite_batch_event_id(b, 2, NULL), 5);
    respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_free(b);
    s = stats_of(q);
    assert_int_equal(s.delivered, 5);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.pending_bytes, 0);
    assert_balanced(q);
    respite_queue_free(q);
}

static void test_L5_a_lapsed_claim_of_another_handle_is_pending_again(void **state)
{
    (void)state;
    const char *path = file_path("lease.db");
    respite_queue *a = must_open(path, 10, 3, 10);
    respite_queue *b = must_open(path, 10, 3, 10);
    put(a, "x", 0);
    put(a, "y", 0);
    respite_batch *held = respite_queue_take(a, 5, 0, NULL);
    assert_int_equal(respite_batch_count(held), 2);
    /* Claimed: not pending for anyone until the lease ends at 10. */
    assert_null(respite_queue_take(b, 5, 9.99, NULL));
    respite_queue_stats s = stats_of(b);
    assert_int_equal(s.in_flight, 2);
    assert_int_equal(s.pending, 0);
    /* Its own handle never takes its claims back. */
    assert_null(respite_queue_take(a, 5, 50, NULL));
    /* At the lease's end the next call moves them to pending, counted. */
    assert_int_equal(respite_queue_expire(b, 10, NULL), 0);
    s = stats_of(b);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.pending, 2);
    assert_int_equal(s.pending_bytes, 2);
    assert_balanced(b);
    respite_batch *again = respite_queue_take(b, 1, 11, NULL);
    assert_string_equal(respite_batch_event_text(again, 0, NULL), "x");
    assert_int_equal(respite_batch_event_attempts(again, 0, NULL), 2); /* the first may have been sent */
    /* The first handle settles late: x is b's now (not counted by a), y is
     * pending and goes as delivered. */
    assert_int_equal(respite_batch_settle_all(held, RESPITE_DISPOSITION_DELIVERED, NULL), 2);
    respite_batch_free(held);
    s = stats_of(a);
    assert_int_equal(s.delivered, 1);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.in_flight, 1);
    assert_balanced(a);
    assert_int_equal(respite_batch_settle_all(again, RESPITE_DISPOSITION_DELIVERED, NULL), 1);
    respite_batch_free(again);
    s = stats_of(b);
    assert_int_equal(s.delivered, 2);
    assert_int_equal(s.in_flight, 0);
    assert_balanced(b);
    respite_queue_free(a);
    respite_queue_free(b);
}

static void test_L5_a_process_that_dies_holding_a_batch_loses_nothing(void **state)
{
    (void)state;
    const char *path = file_path("crash.db");
    respite_queue *q = must_open(path, 100, 3, 5);
    for (int i = 0; i < 10; i++)
        put(q, "event", 0);
    respite_queue_free(q);
    pid_t child = fork();
    if (child == 0) { /* takes a batch and dies without a word */
        respite_queue *c = open_queue(path, 100, 3, 5, NULL);
        respite_batch *b = c ? respite_queue_take(c, 4, 1, NULL) : NULL;
        _exit(respite_batch_count(b) == 4 ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    q = must_open(path, 100, 3, 5);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.in_flight, 4);
    assert_int_equal(s.pending, 6);
    assert_balanced(q);
    respite_batch *b = respite_queue_take(q, 100, 2, NULL);
    assert_int_equal(respite_batch_count(b), 6); /* the claimed four wait for their lease */
    respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_free(b);
    b = respite_queue_take(q, 100, 6, NULL); /* 1 + 5: the lease has ended */
    assert_int_equal(respite_batch_count(b), 4);
    assert_int_equal(respite_batch_event_id(b, 0, NULL), 1);
    assert_int_equal(respite_batch_event_attempts(b, 0, NULL), 2);
    respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL);
    respite_batch_free(b);
    s = stats_of(q);
    assert_int_equal(s.delivered, 10);
    assert_int_equal(s.pending + s.in_flight, 0);
    assert_balanced(q);
    respite_queue_free(q);
}

/* ---------------------------------------------------------------- L6 */

#define PRODUCERS 2
#define PER_PRODUCER 300

static void test_L6_two_processes_enqueue_while_a_third_takes(void **state)
{
    (void)state;
    const char *path = file_path("many.db");
    respite_queue *q = must_open(path, 100000, 0, 60);
    pid_t children[PRODUCERS];
    for (int p = 0; p < PRODUCERS; p++) {
        children[p] = fork();
        if (children[p] == 0) {
            respite_queue *mine = open_queue(path, 100000, 0, 60, NULL);
            int failed = !mine;
            for (int i = 0; i < PER_PRODUCER && !failed; i++) {
                char text[32];
                int n = snprintf(text, sizeof text, "%d-%d", p, i);
                failed = respite_queue_enqueue(mine, text, (size_t)n, respite_now(), NULL) != RESPITE_OK;
            }
            respite_queue_free(mine);
            _exit(failed);
        }
    }
    /* The consumer: every event once, in each producer's order. */
    int next[PRODUCERS] = {0};
    int64_t last_id = 0;
    int got = 0;
    double give_up = respite_now() + 60;
    while (got < PRODUCERS * PER_PRODUCER && respite_now() < give_up) {
        if (respite_queue_wait(q, 1, 1.0, NULL) != 1)
            continue;
        respite_batch *b = respite_queue_take(q, 50, respite_now(), NULL);
        for (int i = 0; i < respite_batch_count(b); i++) {
            int p = -1, n = -1;
            assert_int_equal(sscanf(respite_batch_event_text(b, i, NULL), "%d-%d", &p, &n), 2);
            assert_int_equal(n, next[p]++);
            assert_true(respite_batch_event_id(b, i, NULL) > last_id);
            last_id = respite_batch_event_id(b, i, NULL);
            got++;
        }
        respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL);
        respite_batch_free(b);
        assert_balanced(q);
    }
    for (int p = 0; p < PRODUCERS; p++) {
        int status = 0;
        waitpid(children[p], &status, 0);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(got, PRODUCERS * PER_PRODUCER);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted, PRODUCERS * PER_PRODUCER);
    assert_int_equal(s.delivered, PRODUCERS * PER_PRODUCER);
    assert_balanced(q);
    respite_queue_free(q);
}

static void test_L6_wait_notices_another_process_enqueue(void **state)
{
    (void)state;
    const char *path = file_path("wait.db");
    respite_queue *q = must_open(path, 10, 0, 60);
    assert_int_equal(respite_queue_wait(q, 1, 0.05, NULL), 0);
    pid_t child = fork();
    if (child == 0) {
        usleep(200000);
        respite_queue *c = open_queue(path, 10, 0, 60, NULL);
        int rc = c ? put(c, "hello", 1) : 1;
        respite_queue_free(c);
        _exit(rc);
    }
    double start = respite_now();
    assert_int_equal(respite_queue_wait(q, 1, 10.0, NULL), 1);
    double took = respite_now() - start;
    int status = 0;
    waitpid(child, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    print_message("wait returned after %.3f s (the child enqueued after 0.2 s)\n", took);
    assert_true(took >= 0.15 && took < 3.0);
    assert_int_equal(respite_queue_pending(q, NULL), 1);
    respite_queue_free(q);
}

/* ---------------------------------------------------------------- L8 */

static void test_L8_garbage_is_set_aside_and_a_new_queue_starts(void **state)
{
    (void)state;
    const char *path = file_path("garbage.db");
    char junk[10000];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)(i * 7 + 3);
    write_file(path, junk, sizeof junk);
    respite_queue *q = must_open(path, 10, 0, 60);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.corrupt_set_aside, 1);
    assert_int_equal(s.corrupt_lost, -1); /* nothing could be read */
    assert_int_equal(s.accepted, 0);
    assert_int_equal(files_starting("garbage.db.corrupt-"), 1);
    assert_int_equal(put(q, "fresh", 0), RESPITE_OK);
    assert_int_equal(respite_queue_pending(q, NULL), 1);
    respite_queue_free(q);
    /* The new file is sound: opening again sets nothing aside. */
    q = must_open(path, 10, 0, 60);
    assert_int_equal(stats_of(q).corrupt_set_aside, 0);
    assert_int_equal(respite_queue_pending(q, NULL), 1);
    respite_queue_free(q);
}

static void test_L8_a_file_cut_mid_page_is_set_aside(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s", file_path("cut.db"));
    respite_queue *q = must_open(path, 1000, 0, 60);
    char text[1500];
    memset(text, 'p', sizeof text);
    for (int i = 0; i < 200; i++)
        assert_int_equal(respite_queue_enqueue(q, text, sizeof text, 0, NULL), RESPITE_OK);
    respite_queue_free(q); /* the last connection checkpoints the WAL into the file */
    assert_false(exists(file_path("cut.db-wal")));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 100000);
    assert_int_equal(truncate(path, st.st_size / 2 + 1000), 0); /* inside a page */
    q = must_open(path, 1000, 0, 60);
    respite_queue_stats s = stats_of(q);
    print_message("cut file: set aside %d, lost %lld\n", s.corrupt_set_aside, (long long)s.corrupt_lost);
    assert_int_equal(s.corrupt_set_aside, 1);
    assert_true(s.corrupt_lost == 200 || s.corrupt_lost == -1);
    assert_int_equal(s.pending, 0);
    assert_int_equal(files_starting("cut.db.corrupt-"), 1);
    assert_int_equal(put(q, "fresh", 0), RESPITE_OK);
    respite_queue_free(q);
}

/* Only an opener that finds the file open nowhere else checks it; the
 * events lost are counted when the file's figures can still be read. */
static void test_L8_the_first_opener_checks_and_counts_what_is_lost(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s", file_path("pages.db"));
    respite_queue *w = must_open(path, 1000, 0, 60);
    char text[1500];
    memset(text, 'p', sizeof text);
    for (int i = 0; i < 200; i++)
        assert_int_equal(respite_queue_enqueue(w, text, sizeof text, 0, NULL), RESPITE_OK);
    respite_queue_free(w); /* checkpointed into the file */
    respite_queue *a = must_open(path, 1000, 0, 60);
    assert_int_equal(stats_of(a).corrupt_set_aside, 0);
    /* Garbage over pages in the middle: the header and the figures stay. */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    char junk[16384];
    memset(junk, 0xab, sizeof junk);
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, junk, sizeof junk, st.st_size / 2 / 4096 * 4096), (ssize_t)sizeof junk);
    close(fd);
    respite_queue *b = must_open(path, 1000, 0, 60); /* a is open: no check */
    assert_int_equal(stats_of(b).corrupt_set_aside, 0);
    assert_int_equal(files_starting("pages.db.corrupt-"), 0);
    respite_queue_free(a);
    respite_queue_free(b);
    respite_queue *c = must_open(path, 1000, 0, 60); /* alone: checks, sets aside */
    respite_queue_stats s = stats_of(c);
    assert_int_equal(s.corrupt_set_aside, 1);
    assert_int_equal(s.corrupt_lost, 200);
    assert_int_equal(s.accepted, 0);
    assert_int_equal(files_starting("pages.db.corrupt-"), 1);
    respite_queue_free(c);
}

static void test_L8_a_path_that_cannot_be_a_file_is_storage_not_a_loop(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_null(open_queue(file_path("no-such-dir/q.db"), 10, 0, 60, &err));
    assert_int_equal(err.status, RESPITE_E_STORAGE);
    assert_non_null(strstr(err.message, "no-such-dir/q.db': cannot open: unable to open database file"));
    /* A database of another program is not taken over. */
    const char *other = file_path("other.db");
    sql_on(other, "CREATE TABLE mine (x); INSERT INTO mine VALUES (1);");
    respite_error_clear(&err);
    assert_null(open_queue(other, 10, 0, 60, &err));
    assert_int_equal(err.status, RESPITE_E_STORAGE);
    assert_non_null(strstr(err.message, "is an SQLite database of something else"));
}

/* ---------------------------------------------------------------- L4 */

static void test_L4_a_newer_layout_is_refused_and_left_alone(void **state)
{
    (void)state;
    const char *path = file_path("newer.db");
    respite_queue *q = must_open(path, 10, 0, 60);
    put(q, "kept", 0);
    respite_queue_free(q);
    sql_on(path, "PRAGMA user_version = 7;");
    respite_error err;
    respite_error_clear(&err);
    assert_null(open_queue(path, 10, 0, 60, &err));
    assert_int_equal(err.status, RESPITE_E_STORAGE);
    char expected[600];
    snprintf(expected, sizeof expected,
             "queue file '%s' has layout version 7; this respite reads version 2 (update respite)", path);
    assert_string_equal(err.message, expected);
    sql_on(path, "PRAGMA user_version = 2;"); /* untouched: the event is still there */
    q = must_open(path, 10, 0, 60);
    assert_int_equal(respite_queue_pending(q, NULL), 1);
    respite_queue_free(q);
}

/* The whole file, for byte-for-byte comparison (NULL when missing). */
static char *file_bytes(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    rewind(f);
    char *bytes = malloc((size_t)*size + 1);
    assert_non_null(bytes);
    assert_int_equal(fread(bytes, 1, (size_t)*size, f), (size_t)*size);
    fclose(f);
    return bytes;
}

/* L4: a file that is not ours (a newer layout, another program's database,
 * in rollback-journal mode) is refused before anything writes to it: not
 * even WAL mode is switched on. */
static void test_L4_a_foreign_file_keeps_every_byte(void **state)
{
    (void)state;
    static const char *const setups[] = {
        "PRAGMA journal_mode = DELETE; CREATE TABLE t (x); INSERT INTO t VALUES (1); PRAGMA user_version = 9;",
        "PRAGMA journal_mode = DELETE; CREATE TABLE t (x); INSERT INTO t VALUES (1);",
    };
    for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++) {
        const char *path = file_path(i == 0 ? "foreign-newer.db" : "foreign-other.db");
        sql_on(path, setups[i]);
        long before_size = 0, after_size = 0;
        char *before = file_bytes(path, &before_size);
        assert_non_null(before);
        respite_error err;
        respite_error_clear(&err);
        assert_null(open_queue(path, 10, 0, 60, &err));
        assert_int_equal(err.status, RESPITE_E_STORAGE);
        char *after = file_bytes(path, &after_size);
        assert_non_null(after);
        assert_int_equal(after_size, before_size);
        assert_memory_equal(after, before, (size_t)before_size);
        free(before);
        free(after);
    }
}

/* A file of layout 1 (written by respite before layout 2) is moved to
 * layout 2 when opened: its events, ids and figures kept, and TTL finds its
 * rows whatever their order in time. */
static void test_L4_a_layout_1_file_is_moved_to_layout_2(void **state)
{
    (void)state;
    const char *path = file_path("layout1.db");
    sql_on(path,
           "PRAGMA journal_mode = WAL;"
           "CREATE TABLE entries (id INTEGER PRIMARY KEY, payload BLOB NOT NULL, size INTEGER NOT NULL,"
           " queued_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, retries INTEGER NOT NULL DEFAULT 0,"
           " requeued INTEGER, lease_owner INTEGER, lease_pid INTEGER, lease_until REAL);"
           "CREATE INDEX entries_requeued ON entries (requeued) WHERE requeued IS NOT NULL AND lease_owner IS NULL;"
           "CREATE INDEX entries_age ON entries (queued_at) WHERE lease_owner IS NULL;"
           "CREATE INDEX entries_claimed ON entries (lease_until) WHERE lease_owner IS NOT NULL;"
           "CREATE TABLE counts (one INTEGER PRIMARY KEY CHECK (one = 1), accepted INTEGER NOT NULL DEFAULT 0,"
           " delivered INTEGER NOT NULL DEFAULT 0, dropped_capacity INTEGER NOT NULL DEFAULT 0,"
           " expired INTEGER NOT NULL DEFAULT 0, retries_exhausted INTEGER NOT NULL DEFAULT 0,"
           " discarded INTEGER NOT NULL DEFAULT 0, pending INTEGER NOT NULL DEFAULT 0,"
           " in_flight INTEGER NOT NULL DEFAULT 0, refused_full INTEGER NOT NULL DEFAULT 0,"
           " refused_too_large INTEGER NOT NULL DEFAULT 0, refused_closed INTEGER NOT NULL DEFAULT 0,"
           " retried INTEGER NOT NULL DEFAULT 0, pending_bytes INTEGER NOT NULL DEFAULT 0,"
           " in_flight_bytes INTEGER NOT NULL DEFAULT 0, last_id INTEGER NOT NULL DEFAULT 0,"
           " head_place INTEGER NOT NULL DEFAULT 0);"
           "INSERT INTO counts (one, accepted, delivered, pending, pending_bytes, last_id)"
           " VALUES (1, 3, 1, 2, 2, 3);"
           "CREATE TABLE meta (one INTEGER PRIMARY KEY CHECK (one = 1), boot_id TEXT NOT NULL DEFAULT '',"
           " clock_offset REAL NOT NULL DEFAULT 0);"
           "INSERT INTO meta (one) VALUES (1);"
           /* Two handles' clocks: the later id was queued earlier. */
           "INSERT INTO entries (id, payload, size, queued_at) VALUES (2, 'x', 1, 500), (3, 'y', 1, 100);"
           "PRAGMA user_version = 1;");
    respite_queue *q = must_open_ttl(path, 10, 0, 60, 100);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.accepted, 3);
    assert_int_equal(s.pending, 2);
    assert_int_equal(put(q, "new", 600), RESPITE_OK);
    assert_int_equal(respite_queue_expire(q, 650, NULL), 2); /* ages 150 and 550 */
    respite_batch *b = respite_queue_take(q, 5, 650, NULL);
    assert_int_equal(respite_batch_count(b), 1);
    assert_int_equal(respite_batch_event_id(b, 0, NULL), 4);
    respite_batch_free(b);
    assert_balanced(q);
    respite_queue_free(q);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 2);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* ---------------------------------------------------------------- D6 */

/* TTL on a file is exact whatever order handles' clocks put events in (the
 * file finds a row queued before an earlier one by age, as memory's sweep
 * does), and for events put back at the head. */
static void test_L1_expiry_with_handles_whose_clocks_disagree(void **state)
{
    (void)state;
    const char *path = file_path("clocks.db");
    respite_queue *a = must_open_ttl(path, 10, 3, 60, 100);
    respite_queue *b = must_open_ttl(path, 10, 3, 60, 100);
    assert_int_equal(put(a, "a1", 100), RESPITE_OK); /* id 1 */
    assert_int_equal(put(a, "a2", 200), RESPITE_OK); /* id 2 */
    assert_int_equal(put(b, "b", 50), RESPITE_OK);   /* id 3, the oldest */
    assert_int_equal(put(a, "a3", 300), RESPITE_OK); /* id 4 */
    /* At 215 (b's clock): a1 (age 115) and b (165) expire, not a2 (15). */
    assert_int_equal(respite_queue_expire(b, 215, NULL), 2);
    respite_batch *batch = respite_queue_take(b, 1, 215, NULL);
    assert_int_equal(respite_batch_event_id(batch, 0, NULL), 2);
    assert_int_equal(respite_batch_settle(batch, 0, RESPITE_DISPOSITION_RETRY, NULL), RESPITE_DISPOSITION_RETRY);
    respite_batch_free(batch); /* a2 back at the head */
    /* At 305: a2 (age 105) expires, a3 (5) stays. */
    assert_int_equal(respite_queue_expire(b, 305, NULL), 1);
    assert_int_equal(respite_queue_expire(b, 305, NULL), 0);
    respite_queue_stats s = stats_of(b);
    assert_int_equal(s.expired, 3);
    assert_int_equal(s.pending, 1);
    /* A row of the chain after rows aside: found in order of ids. */
    assert_int_equal(put(b, "b2", 310), RESPITE_OK);
    assert_int_equal(respite_queue_expire(b, 405, NULL), 1); /* a3: 105; b2: 95 */
    assert_int_equal(respite_queue_expire(b, 410, NULL), 1);
    assert_int_equal(respite_queue_pending(a, NULL), 0);
    assert_balanced(a);
    respite_queue_free(a);
    respite_queue_free(b);
}

/* ---------------------------------------------------------------- L9 */

static void test_L9_times_and_claims_carry_over_a_reboot(void **state)
{
    (void)state;
    const char *path = file_path("reboot.db");
    respite_queue *q = must_open(path, 10, 0, 60);
    put(q, "old", 1000);
    put(q, "claimed", 1000);
    respite_batch *b = respite_queue_take(q, 1, 1000, NULL);
    respite_queue_free(q); /* the batch's claim stays in the file */
    respite_batch_free(b);
    /* As if the file were written in another boot whose wall clock ran 100 s
     * ahead of its monotonic clock more than this one's does: every time moves
     * 100 s later and the claim is cleared. */
    sql_on(path, "UPDATE meta SET boot_id = 'another-boot', clock_offset = clock_offset + 100;");
    q = must_open(path, 10, 0, 60);
    respite_queue_stats s = stats_of(q);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.pending, 2);
    assert_balanced(q);
    b = respite_queue_take(q, 5, 1200, NULL);
    assert_int_equal(respite_batch_count(b), 2);
    assert_true(fabs(respite_batch_event_age(b, 0, 1200, NULL) - 100) < 1.0);
    respite_batch_free(b);
    respite_queue_free(q);
}

/* ---------------------------------------------------------------- L2 */

static void test_L2_durability_full_and_settings(void **state)
{
    (void)state;
    respite_settings *s = new_settings("queue");
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_text(s, "durability", "fsync", &err), RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "durability must be one of normal, full (got 'fsync')");
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_number(s, "lease_seconds", 0, &err), RESPITE_E_INVALID_SETTING);
    assert_int_equal(respite_settings_set_text(s, "durability", "full", NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_text(s, "queue_path", file_path("full.db"), NULL), RESPITE_OK);
    respite_queue *q = respite_queue_new(NULL, s, NULL);
    assert_non_null(q);
    assert_int_equal(put(q, "safe", 0), RESPITE_OK);
    assert_int_equal(respite_queue_pending(q, NULL), 1);
    respite_queue_free(q);
    respite_settings_free(s);
}

static void sleep_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    nanosleep(&t, NULL);
}

/* The other writer's busy handler: it takes the lock back as soon as it is free. */
static int retry_at_once(void *arg, int tries)
{
    (void)arg, (void)tries;
    sleep_ms(0.05);
    return 1;
}

/* L2: writers wait for each other up to 5 s. Another process writes back to
 * back, holding the lock 100 to 300 ms at a time with 2 ms between (as
 * several producers do, slowed down, on a loaded machine), while this one
 * enqueues, takes and settles: every call gets in at one of the gaps.
 * SQLite's own busy handler (about 60 tries in 5 s, after sleeps growing to
 * 100 ms) missed them and gave up: "database is locked". */
#define CALLS_BETWEEN 10

static void test_L2_a_call_gets_in_between_another_process_transactions(void **state)
{
    (void)state;
    const char *path = file_path("busy.db");
    respite_queue *q = must_open(path, 1000, 0, 60);
    int ready[2], stop[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(stop), 0);
    pid_t child = fork();
    if (child == 0) {
        sqlite3 *db = NULL;
        int failed = sqlite3_open(path, &db) != SQLITE_OK;
        sqlite3_busy_handler(db, retry_at_once, NULL);
        fcntl(stop[0], F_SETFL, O_NONBLOCK);
        char c = 'r';
        unsigned seed = 7;
        double end = respite_now() + 30;
        for (int n = 0; !failed && respite_now() < end && read(stop[0], &c, 1) < 0; n++) {
            failed = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK;
            if (n == 0 && write(ready[1], &c, 1) != 1)
                failed = 1;
            sleep_ms(100 + 200.0 * rand_r(&seed) / RAND_MAX); /* no rhythm a waiter could fall into */
            failed |= sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK;
            sleep_ms(2);
        }
        sqlite3_close(db);
        _exit(failed);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1); /* it holds the lock now */
    double longest = 0;
    for (int i = 0; i < CALLS_BETWEEN; i++) {
        respite_error err;
        respite_error_clear(&err);
        double start = respite_now();
        if (respite_queue_enqueue(q, "between", 7, respite_now(), &err) != RESPITE_OK)
            fail_msg("enqueue %d: %s", i, err.message);
        respite_batch *b = respite_queue_take(q, 1, respite_now(), &err);
        if (!b)
            fail_msg("take %d: %s", i, err.message);
        assert_int_equal(respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, &err), 1);
        respite_batch_free(b);
        if (respite_now() - start > longest)
            longest = respite_now() - start;
    }
    close(stop[1]);
    int status = 0;
    waitpid(child, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0); /* it wrote all along */
    print_message("longest enqueue + take + settle: %.3f s\n", longest);
    assert_int_equal(stats_of(q).delivered, CALLS_BETWEEN);
    respite_queue_free(q);
    close(ready[0]);
    close(ready[1]);
    close(stop[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        QUEUE_TESTS
        cmocka_unit_test(test_L1_a_file_answers_as_memory_does),
        cmocka_unit_test(test_L2_durability_full_and_settings),
        cmocka_unit_test(test_L2_a_call_gets_in_between_another_process_transactions),
        cmocka_unit_test(test_L3_ids_increase_and_carry_over_reopening),
        cmocka_unit_test(test_L4_a_newer_layout_is_refused_and_left_alone),
        cmocka_unit_test(test_L4_a_foreign_file_keeps_every_byte),
        cmocka_unit_test(test_L4_a_layout_1_file_is_moved_to_layout_2),
        cmocka_unit_test(test_L1_expiry_with_handles_whose_clocks_disagree),
        cmocka_unit_test(test_L5_a_lapsed_claim_of_another_handle_is_pending_again),
        cmocka_unit_test(test_L5_a_process_that_dies_holding_a_batch_loses_nothing),
        cmocka_unit_test(test_L6_two_processes_enqueue_while_a_third_takes),
        cmocka_unit_test(test_L6_wait_notices_another_process_enqueue),
        cmocka_unit_test(test_L6_a_forked_child_cannot_use_the_parents_handle),
        cmocka_unit_test(test_L7_figures_and_events_survive_reopening),
        cmocka_unit_test(test_L7_enqueues_are_counted_by_their_rows),
        cmocka_unit_test(test_L8_garbage_is_set_aside_and_a_new_queue_starts),
        cmocka_unit_test(test_L8_a_file_cut_mid_page_is_set_aside),
        cmocka_unit_test(test_L8_the_first_opener_checks_and_counts_what_is_lost),
        cmocka_unit_test(test_L8_a_path_that_cannot_be_a_file_is_storage_not_a_loop),
        cmocka_unit_test(test_L9_times_and_claims_carry_over_a_reboot),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}

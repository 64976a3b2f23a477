/* The durable queue (docs/spec.md section 10) side by side with what it
 * is made of, in paired rounds (the two cases of a pair run back to back,
 * their order alternating, so load on a shared machine hits both alike):
 *
 * 1. enqueue into a queue file with durability normal, one call = one
 * transaction, vs a plain SQLite loop inserting the same rows (same
 * columns, WAL, synchronous=NORMAL, a prepared INSERT, autocommit), and vs
 * that loop also updating a row of figures in each transaction (1b);
 * target >= 0.8x the plain loop.
 * 2. batched: respite_queue_enqueue_many with 100 events per call (one
 * transaction, Q10) vs the plain loop with 100 rows per transaction;
 * target >= 100,000 events/s.
 * 3. delivery: a sender draining N queued events to the fault server
 * in batches of 100, queue in memory vs queue in a file.
 * 4. the PHP-FPM shape: per request, open the file, enqueue one event,
 * free the queue, into a file already holding N events while another
 * handle (the worker) keeps it open, vs an enqueue on a queue kept open.
 *
 *   bench_durable_queue [events] [rounds] [directory]
 *
 * Defaults 5000 events, 5 rounds, files in /tmp. */
#include "bench_stats.h"
#include "respite.h"
#include "respite/http.h"

#include "fault_server.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char payload[] = "{\"id\":12345,\"ua\":\"Mozilla/5.0\",\"path\":\"/api/v1/usage\"}";

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_durable_queue: %s: %s\n", what, why);
    exit(1);
}

static void remove_db(const char *path)
{
    char side[1100];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static respite_settings *queue_settings(const char *path)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new("queue", &err);
    if (!s || respite_settings_set_text(s, "queue_path", path, &err) != RESPITE_OK ||
        respite_settings_set_text(s, "durability", "normal", &err) != RESPITE_OK)
        die("queue settings", err.message);
    return s;
}

static respite_policy *big_policy(int capacity)
{
    respite_error err = {0};
    respite_policy_builder *b = respite_policy_builder_new("bench", capacity, &err);
    if (!b || respite_policy_builder_add_handler(b, "any_error", "retry", &err) != RESPITE_OK ||
        respite_policy_builder_set_retry_times(b, 100, &err) != RESPITE_OK)
        die("policy", err.message);
    respite_policy *p = respite_policy_builder_build(b, NULL, &err);
    respite_policy_builder_free(b);
    if (!p)
        die("policy", err.message);
    return p;
}

/* ------------------------------------------------------ 1: enqueue */

#define BATCH 100

/* n enqueues into a new file: one by one (per_call 1), or per_call at a
 * time with respite_queue_enqueue_many (one transaction each, Q10). */
static double durable_enqueue_by(const char *path, const respite_policy *policy, int n, int per_call)
{
    remove_db(path);
    respite_settings *s = queue_settings(path);
    respite_error err = {0};
    respite_queue *q = respite_queue_new(policy, s, &err);
    if (!q)
        die("open the queue file", err.message);
    static char many[BATCH * sizeof payload];
    static size_t sizes[BATCH];
    for (int j = 0; j < BATCH; j++) {
        memcpy(many + (size_t)j * (sizeof payload - 1), payload, sizeof payload - 1);
        sizes[j] = sizeof payload - 1;
    }
    double start = respite_now();
    for (int i = 0; i < n; i += per_call) {
        int count = n - i < per_call ? n - i : per_call;
        int rc = per_call == 1 ? respite_queue_enqueue(q, payload, sizeof payload - 1, start, &err)
                               : respite_queue_enqueue_many(q, many, sizes, count, start, NULL, &err);
        if (rc != RESPITE_OK)
            die("enqueue", err.message);
    }
    double t = respite_now() - start;
    respite_queue_stats st;
    if (respite_queue_stats_get(q, &st, &err) != RESPITE_OK || st.pending != n)
        die("enqueue", "the file does not hold every event");
    respite_queue_free(q);
    respite_settings_free(s);
    return t;
}

static double durable_enqueue(const char *path, const respite_policy *policy, int n)
{
    return durable_enqueue_by(path, policy, n, 1);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK)
        die(sql, message ? message : "failed");
}

/* The same rows as the durable queue's (id, payload, queued_at, attempts,
 * retries, lease owner, lease until), per_tx rows per transaction; with
 * counts, each transaction also updates a row of figures (what keeping D9
 * in a figures row would cost; the queue's enqueue, layout 2, writes its
 * row alone, the figures following from the rows). */
static double plain_insert(const char *path, int n, int per_tx, int counts)
{
    remove_db(path);
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("sqlite3_open", sqlite3_errmsg(db));
    exec_sql(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;"
                 "CREATE TABLE entries(id INTEGER PRIMARY KEY AUTOINCREMENT, payload BLOB NOT NULL, "
                 "queued_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, retries INTEGER NOT NULL DEFAULT 0, "
                 "lease_owner TEXT, lease_until REAL);"
                 "CREATE TABLE counts(id INTEGER PRIMARY KEY, accepted INTEGER, pending INTEGER, pending_bytes INTEGER);"
                 "INSERT INTO counts VALUES (1, 0, 0, 0)");
    sqlite3_stmt *insert = NULL, *count = NULL;
    if (sqlite3_prepare_v2(db, "UPDATE counts SET accepted = accepted + 1, pending = pending + 1, "
                               "pending_bytes = pending_bytes + ? WHERE id = 1", -1, &count, NULL) != SQLITE_OK)
        die("prepare", sqlite3_errmsg(db));
    if (sqlite3_prepare_v2(db, "INSERT INTO entries(payload, queued_at) VALUES (?, ?)", -1, &insert, NULL) !=
        SQLITE_OK)
        die("prepare", sqlite3_errmsg(db));
    double start = respite_now();
    int explicit_tx = per_tx > 1 || counts;
    for (int i = 0; i < n; i++) {
        if (explicit_tx && i % per_tx == 0)
            exec_sql(db, "BEGIN IMMEDIATE");
        sqlite3_bind_blob(insert, 1, payload, (int)sizeof payload - 1, SQLITE_STATIC);
        sqlite3_bind_double(insert, 2, start);
        if (sqlite3_step(insert) != SQLITE_DONE)
            die("insert", sqlite3_errmsg(db));
        sqlite3_reset(insert);
        if (counts) {
            sqlite3_bind_int64(count, 1, (sqlite3_int64)sizeof payload - 1);
            if (sqlite3_step(count) != SQLITE_DONE)
                die("count", sqlite3_errmsg(db));
            sqlite3_reset(count);
        }
        if (explicit_tx && (i % per_tx == per_tx - 1 || i == n - 1))
            exec_sql(db, "COMMIT");
    }
    double t = respite_now() - start;
    sqlite3_finalize(count);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return t;
}

/* ----------------------------------------------- 4: per request */

/* Seconds for `requests` open + enqueue(1) + free into a file that holds
 * what earlier calls left (the caller fills it first). */
static double per_request(const char *path, const respite_policy *policy, int requests)
{
    respite_settings *s = queue_settings(path);
    respite_error err = {0};
    /* The worker (respite deliver) keeps the file open, so a request's
     * close is never the last one (which would checkpoint the WAL). */
    respite_queue *worker = respite_queue_new(policy, s, &err);
    if (!worker)
        die("open the queue file", err.message);
    double start = respite_now();
    for (int i = 0; i < requests; i++) {
        respite_queue *q = respite_queue_new(policy, s, &err);
        if (!q || respite_queue_enqueue(q, payload, sizeof payload - 1, respite_now(), &err) != RESPITE_OK)
            die("open and enqueue", err.message);
        respite_queue_free(q);
    }
    double t = respite_now() - start;
    respite_queue_free(worker);
    respite_settings_free(s);
    return t;
}

/* --------------------------------------------------- 3: delivery */

/* Seconds to deliver n events queued first (min_entries_per_message above
 * n keeps the sender from starting before the flush). */
static double deliver(const char *url, const char *path, const respite_policy *policy, int n)
{
    respite_error err = {0};
    respite_settings *sender = respite_settings_new("sender", &err);
    respite_settings *queue = path ? queue_settings(path) : respite_settings_new("queue", &err);
    char min[32];
    snprintf(min, sizeof min, "%d", n + 1);
    if (!sender || !queue || respite_settings_set_text(sender, "url", url, &err) != RESPITE_OK ||
        respite_settings_set_text(sender, "min_entries_per_message", min, &err) != RESPITE_OK ||
        respite_settings_set_text(sender, "max_entries_per_message", "100", &err) != RESPITE_OK)
        die("sender settings", err.message);
    if (path)
        remove_db(path);
    respite_sender *s = respite_sender_new(sender, NULL, queue, policy, &err);
    if (!s)
        die("sender", err.message);
    for (int i = 0; i < n; i++)
        if (respite_sender_enqueue(s, payload, sizeof payload - 1, &err) != RESPITE_OK)
            die("sender enqueue", err.message);
    double start = respite_now();
    if (respite_sender_flush(s, 600, &err) != RESPITE_OK)
        die("flush", err.message);
    double t = respite_now() - start;
    respite_sender_stats st;
    if (respite_sender_stats_get(s, &st, &err) != RESPITE_OK || st.queue.delivered != n)
        die("deliver", "not every event was delivered");
    respite_sender_free(s);
    respite_settings_free(sender);
    respite_settings_free(queue);
    return t;
}

/* ------------------------------------------------------------ figures */

/* Prints the case and returns the median per-round ratio (a's rate over b's). */
static double report(const char *what, const char *a_name, const double *a, const char *b_name, const double *b,
                     int rounds, int n)
{
    double ratio[64], ta[64], tb[64];
    for (int r = 0; r < rounds; r++) {
        ratio[r] = b[r] / a[r]; /* throughput of a over throughput of b */
        ta[r] = a[r];
        tb[r] = b[r];
    }
    bench_sort(ratio, rounds);
    bench_sort(ta, rounds);
    bench_sort(tb, rounds);
    printf("%s\n  %-34s %10.0f events/s (median of %d rounds)\n  %-34s %10.0f events/s\n"
           "  ratio %s / %s per round: min %.2fx, median %.2fx, max %.2fx\n",
           what, a_name, n / ta[rounds / 2], rounds, b_name, n / tb[rounds / 2], a_name, b_name, ratio[0],
           ratio[rounds / 2], ratio[rounds - 1]);
    return ratio[rounds / 2];
}

/* A line for scripts/bench.sh's table: result<TAB>target<TAB>figure<TAB>verdict. */
static void result_line(const char *target, const double *a, const double *b, int rounds, int n, double want)
{
    double ratio[64], ta[64], tb[64];
    for (int r = 0; r < rounds; r++) {
        ratio[r] = b[r] / a[r];
        ta[r] = a[r];
        tb[r] = b[r];
    }
    bench_sort(ratio, rounds);
    bench_sort(ta, rounds);
    bench_sort(tb, rounds);
    printf("result\t%s\t%.0f vs %.0f events/s: %.2fx median (min %.2f, max %.2f) of %d paired rounds\t%s\n", target,
           n / ta[rounds / 2], n / tb[rounds / 2], ratio[rounds / 2], ratio[0], ratio[rounds - 1], rounds,
           ratio[rounds / 2] >= want ? "met" : "NOT met");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    const char *dir = argc > 3 ? argv[3] : "/tmp";
    if (n < 100 || rounds < 1 || rounds > 64)
        die("usage", "bench_durable_queue [events >= 100] [rounds 1-64] [directory]");
    char durable_path[1024], plain_path[1024];
    snprintf(durable_path, sizeof durable_path, "%s/bench-durable-%d.db", dir, (int)getpid());
    snprintf(plain_path, sizeof plain_path, "%s/bench-plain-%d.db", dir, (int)getpid());
    respite_policy *policy = big_policy(2 * n < 1000000 ? 2 * n : 1000000); /* room for case 4 */
    printf("bench_durable_queue: %d events per case, %d paired rounds, files in %s, SQLite %s\n\n", n, rounds, dir,
           sqlite3_libversion());

    double durable[64], plain[64], counted[64], batched[64], many[64];
    durable_enqueue(durable_path, policy, n / 10); /* warm up */
    plain_insert(plain_path, n / 10, 1, 0);
    for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0) {
            durable[r] = durable_enqueue(durable_path, policy, n);
            plain[r] = plain_insert(plain_path, n, 1, 0);
        } else {
            plain[r] = plain_insert(plain_path, n, 1, 0);
            durable[r] = durable_enqueue(durable_path, policy, n);
        }
        counted[r] = plain_insert(plain_path, n, 1, 1);
        if (r % 2 == 0) {
            many[r] = durable_enqueue_by(durable_path, policy, n, BATCH);
            batched[r] = plain_insert(plain_path, n, BATCH, 0);
        } else {
            batched[r] = plain_insert(plain_path, n, BATCH, 0);
            many[r] = durable_enqueue_by(durable_path, policy, n, BATCH);
        }
    }
    report("1. enqueue, durability normal, one transaction per event (target >= 0.8x)", "respite durable enqueue",
           durable, "plain SQLite INSERT loop", plain, rounds, n);
    report("1b. the same against INSERT + UPDATE of a figures row per transaction",
           "respite durable enqueue", durable, "plain INSERT + UPDATE counts", counted, rounds, n);
    report("2. batched: respite_queue_enqueue_many, 100 per call (one transaction) vs plain SQLite, 100 rows per "
           "transaction", "respite enqueue_many x100", many, "plain SQLite, 100 per transaction", batched, rounds, n);
    result_line("durable enqueue (normal) >= 0.8x a plain SQLite insert loop of the same rows", durable, plain, rounds,
                n, 0.8);
    double rate[64];
    for (int r = 0; r < rounds; r++)
        rate[r] = n / many[r];
    bench_sort(rate, rounds);
    printf("result\tdurable batched enqueue (100 per transaction) >= 100,000 events/s\t%.0f events/s median (min %.0f, "
           "max %.0f) of %d rounds\t%s\n",
           rate[rounds / 2], rate[0], rate[rounds - 1], rounds, rate[rounds / 2] >= 100000 ? "met" : "NOT met");

    char error[256];
    respite_fault_server *server = respite_fault_server_start(0, error, sizeof error);
    if (!server)
        die("fault server", error);
    respite_fault_server_set_keep_bodies(server, 0);
    const char *url = respite_fault_server_url(server);
    double memory[64], file[64];
    deliver(url, NULL, policy, n / 10); /* warm up the connection path */
    for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0) {
            memory[r] = deliver(url, NULL, policy, n);
            file[r] = deliver(url, durable_path, policy, n);
        } else {
            file[r] = deliver(url, durable_path, policy, n);
            memory[r] = deliver(url, NULL, policy, n);
        }
        respite_fault_server_reset(server);
        respite_fault_server_set_keep_bodies(server, 0);
    }
    report("3. delivery to the fault server, batches of 100", "queue in a file", file, "queue in memory", memory,
           rounds, n);

    /* 4: the file holds n events (the last round of 1 left them). */
    int requests = n / 10 < 500 ? n / 10 : 500;
    double opened[64], kept[64];
    for (int r = 0; r < rounds; r++) {
        durable_enqueue(durable_path, policy, n);
        if (r % 2 == 0) {
            opened[r] = per_request(durable_path, policy, requests);
            kept[r] = durable_enqueue(plain_path, policy, requests);
        } else {
            kept[r] = durable_enqueue(plain_path, policy, requests);
            opened[r] = per_request(durable_path, policy, requests);
        }
    }
    report("4. per request (PHP-FPM): open + enqueue 1 + free, the file holding N events", "open, enqueue, free",
           opened, "enqueue on an open queue", kept, rounds, requests);
    respite_fault_server_stop(server);
    respite_policy_free(policy);
    remove_db(durable_path);
    remove_db(plain_path);
    return 0;
}

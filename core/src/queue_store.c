/* The SQLite file of a durable queue (docs/spec.md section 10).
 *
 * Layout 2 (PRAGMA user_version = 2):
 *   entries  one row per pending or claimed event, in id order; an event
 *            put back at the head (D4) gets a place in `requeued`, smaller
 *            for later ones, and every such event is ahead of every event
 *            never put back (those were pending or not yet queued when it
 *            went back). So new rows touch no index of the queue's order.
 *            Nor of age: a row queued no earlier than every row before it
 *            (the chain: chain_at NULL) is found by expiry from the lowest
 *            id, where the chain's expired rows form a prefix; a row queued
 *            earlier (another handle's clock, chain_at = the chain's time
 *            then) or put back sits in the `aside` index on age. `total`:
 *            the bytes of every event accepted up to this one.
 *   counts   one row: the D9 figures that are not implied by the rows,
 *            written in the transaction of the change they count (L7):
 *            accepted is the highest id given (the last row's, or last_id
 *            once that row is gone: every removal writes this row), pending
 *            is accepted less the other figures, pending_bytes the last
 *            `total` less removed_bytes and in_flight_bytes. So an enqueue
 *            writes its row and nothing else.
 *   meta     one row: the boot id and wall - monotonic clock offset (L9)
 * WAL mode; synchronous NORMAL or FULL (L2). */
#include "queue_store.h"
#include "rng.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define STORE_LAYOUT 2
#define BUSY_TIMEOUT_MS 5000
/* How often a writer tries the lock again while it waits (see busy_wait). */
#define BUSY_RETRY_NS 1000000L
/* The clock offset is refreshed at most this often (L9). */
#define OFFSET_REFRESH_SECONDS 60.0

enum {
    Q_BEGIN,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_COUNTS_LOAD,
    Q_COUNTS_SAVE,
    Q_INSERT,
    Q_HEAD_REQUEUED,
    Q_HEAD,
    Q_DELETE,
    Q_CLAIM,
    Q_READ,
    Q_OWNER,
    Q_RELEASE,
    Q_EXPIRE_COUNT,
    Q_EXPIRE,
    Q_CHAIN_END,
    Q_EXPIRE_CHAIN_COUNT,
    Q_EXPIRE_CHAIN,
    Q_RECLAIM_COUNT,
    Q_RECLAIM,
    Q_META_SAVE,
    Q_COUNT_
};

/* The figures kept in counts as they are, in column order. */
#define STORE_FIGURES(X)                                                                                 \
    X(delivered) X(dropped_capacity) X(expired) X(retries_exhausted) X(discarded) X(in_flight)          \
        X(refused_full) X(refused_too_large) X(refused_closed) X(retried) X(in_flight_bytes)
/* Then these, which say where the rows leave off. */
#define COUNTS_MORE "removed_bytes, last_id, last_total, head_place"
#define FIGURE_COLUMN_(f) #f ", "
#define FIGURE_SET_(f) #f " = ?, "
#define FIGURE_DECLARE_(f) #f " INTEGER NOT NULL DEFAULT 0, "
#define FIGURE_ONE_(f) +1
enum { FIGURE_COUNT = 0 STORE_FIGURES(FIGURE_ONE_) };

/* Rows off the chain (put back, or queued before an earlier row): the
 * `aside` index. The term is written as the index's, so SQLite uses it. */
#define ASIDE "(requeued IS NOT NULL OR chain_at IS NOT NULL) AND lease_owner IS NULL"
#define CHAIN "requeued IS NULL AND chain_at IS NULL AND lease_owner IS NULL"
/* D6's own test: age == TTL drops. */
#define EXPIRED "?2 - queued_at >= ?3"
/* The first term walks the index on age; the second is the exact test. */
#define EXPIRED_ROWS ASIDE " AND queued_at <= ?1 AND " EXPIRED
/* The chain's expired prefix, below its first live row ?1. */
#define EXPIRED_CHAIN "id < ?1 AND " CHAIN " AND " EXPIRED
/* Claims of other handles whose lease has ended (L5). */
#define LAPSED_CLAIMS "lease_owner IS NOT NULL AND lease_until <= ?2 AND lease_owner <> ?1"

static const char *const sql[Q_COUNT_] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    /* One statement, so one snapshot even outside a transaction. */
    [Q_COUNTS_LOAD] = "SELECT " STORE_FIGURES(FIGURE_COLUMN_) COUNTS_MORE ", last.id, last.total, "
                      "coalesce(last.chain_at, last.queued_at) FROM counts LEFT JOIN "
                      "(SELECT id, total, chain_at, queued_at FROM entries ORDER BY id DESC LIMIT 1) AS last",
    [Q_COUNTS_SAVE] = "UPDATE counts SET " STORE_FIGURES(FIGURE_SET_) "removed_bytes = ?, last_id = ?, "
                      "last_total = ?, head_place = ?",
    [Q_INSERT] = "INSERT INTO entries (id, payload, size, queued_at, chain_at, total) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [Q_HEAD_REQUEUED] = "SELECT id, queued_at, attempts, size FROM entries "
                        "WHERE requeued IS NOT NULL AND lease_owner IS NULL ORDER BY requeued LIMIT 1",
    /* Skips only claimed rows: at most the events in flight. */
    [Q_HEAD] = "SELECT id, queued_at, attempts, size FROM entries "
               "WHERE requeued IS NULL AND lease_owner IS NULL ORDER BY id LIMIT 1",
    [Q_DELETE] = "DELETE FROM entries WHERE id = ?",
    [Q_CLAIM] = "UPDATE entries SET lease_owner = ?2, lease_pid = ?3, lease_until = ?4, attempts = attempts + 1 "
                "WHERE id = ?1",
    [Q_READ] = "SELECT payload, queued_at, attempts FROM entries WHERE id = ?",
    [Q_OWNER] = "SELECT lease_owner FROM entries WHERE id = ?",
    [Q_RELEASE] = "UPDATE entries SET lease_owner = NULL, lease_pid = NULL, lease_until = NULL, requeued = ?3, "
                  "attempts = ?4, retries = retries + ?5 WHERE id = ?1 AND lease_owner = ?2",
    /* Counted first, then changed: UPDATE or DELETE ... RETURNING would
     * build a temporary table on every call, found or not. */
    [Q_EXPIRE_COUNT] = "SELECT count(*), total(size) FROM entries WHERE " EXPIRED_ROWS,
    [Q_EXPIRE] = "DELETE FROM entries WHERE " EXPIRED_ROWS,
    /* Walks from the lowest id past the expired prefix (and the claimed or
     * aside rows among it) to the chain's first live row. */
    [Q_CHAIN_END] = "SELECT id FROM entries WHERE " CHAIN " AND NOT (" EXPIRED ") ORDER BY id LIMIT 1",
    [Q_EXPIRE_CHAIN_COUNT] = "SELECT count(*), total(size) FROM entries WHERE " EXPIRED_CHAIN,
    [Q_EXPIRE_CHAIN] = "DELETE FROM entries WHERE " EXPIRED_CHAIN,
    [Q_RECLAIM_COUNT] = "SELECT count(*), total(size) FROM entries WHERE " LAPSED_CLAIMS,
    [Q_RECLAIM] = "UPDATE entries SET lease_owner = NULL, lease_pid = NULL, lease_until = NULL WHERE " LAPSED_CLAIMS,
    [Q_META_SAVE] = "UPDATE meta SET boot_id = ?, clock_offset = ?",
};

static const char schema[] =
    "CREATE TABLE entries (id INTEGER PRIMARY KEY, payload BLOB NOT NULL, size INTEGER NOT NULL,"
    " queued_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, retries INTEGER NOT NULL DEFAULT 0,"
    " requeued INTEGER, lease_owner INTEGER, lease_pid INTEGER, lease_until REAL, chain_at REAL,"
    " total INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX entries_requeued ON entries (requeued) WHERE requeued IS NOT NULL AND lease_owner IS NULL;"
    "CREATE INDEX entries_aside ON entries (queued_at) WHERE " ASIDE ";"
    "CREATE INDEX entries_claimed ON entries (lease_until) WHERE lease_owner IS NOT NULL;"
    "CREATE TABLE counts (one INTEGER PRIMARY KEY CHECK (one = 1), " STORE_FIGURES(FIGURE_DECLARE_)
    "removed_bytes INTEGER NOT NULL DEFAULT 0, last_id INTEGER NOT NULL DEFAULT 0,"
    " last_total INTEGER NOT NULL DEFAULT 0, head_place INTEGER NOT NULL DEFAULT 0);"
    "INSERT INTO counts (one) VALUES (1);"
    "CREATE TABLE meta (one INTEGER PRIMARY KEY CHECK (one = 1), boot_id TEXT NOT NULL DEFAULT '',"
    " clock_offset REAL NOT NULL DEFAULT 0);"
    "INSERT INTO meta (one) VALUES (1);"
    "PRAGMA user_version = 2;";

/* Layout 1 to 2: every row set aside (their order in age is unknown);
 * the old rows' totals are never read (their ids are at most last_id). */
static const char from_layout_1[] =
    "ALTER TABLE entries ADD COLUMN chain_at REAL;"
    "ALTER TABLE entries ADD COLUMN total INTEGER NOT NULL DEFAULT 0;"
    "UPDATE entries SET chain_at = queued_at;"
    "ALTER TABLE counts ADD COLUMN removed_bytes INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE counts ADD COLUMN last_total INTEGER NOT NULL DEFAULT 0;"
    "UPDATE counts SET last_id = accepted, last_total = pending_bytes + in_flight_bytes;"
    "ALTER TABLE counts DROP COLUMN accepted;"
    "ALTER TABLE counts DROP COLUMN pending;"
    "ALTER TABLE counts DROP COLUMN pending_bytes;"
    "DROP INDEX entries_age;"
    "CREATE INDEX entries_aside ON entries (queued_at) WHERE " ASIDE ";"
    "PRAGMA user_version = 2;";

struct queue_store {
    sqlite3 *db;
    sqlite3_stmt *stmt[Q_COUNT_];
    char *path;
    int64_t owner; /* this handle's claims: random, never 0 */
    int pid;
    int open_fd; /* <path>-open: every handle holds a shared lock on it */
    double lease_seconds;
    /* In the transaction: the last id given, the bytes of every event
     * accepted, the chain's time (no row of the chain was queued after it),
     * and what counts holds besides the figures. */
    int64_t last_id;
    int64_t last_total;
    double chain_time;
    int64_t removed_bytes;
    int64_t head_place;
    char boot_id[40];
    double offset_saved_at; /* monotonic */
    double busy_since;      /* monotonic: when the current wait for a lock began */
    /* As the transaction began: a call that changed nothing writes nothing. */
    respite_queue_stats loaded;
    int64_t loaded_removed_bytes, loaded_head_place;
    sqlite3_int64 changes_at_begin;
};

/* -------------------------------------------------------------- errors */

static int fail_db(queue_store *s, sqlite3 *db, const char *doing, respite_error *err)
{
    return respite_fail(err, RESPITE_E_STORAGE, "queue file '%s': %s: %s", s->path, doing,
                        db ? sqlite3_errmsg(db) : "out of memory");
}

static int is_corruption(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/* ------------------------------------------------------------- clocks */

static void read_boot_id(char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return;
    if (fgets(out, (int)size, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

/* Wall clock minus monotonic clock: constant while the machine runs. */
static double clock_offset(void)
{
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    return (double)wall.tv_sec + (double)wall.tv_nsec * 1e-9 - respite_now();
}

/* SQLite's busy handler: every millisecond, up to BUSY_TIMEOUT_MS in all.
 * SQLite's own (sqlite3_busy_timeout) sleeps up to 100 ms between tries, so
 * under load a writer that backed off kept missing the lock between other
 * processes' short transactions (each well under 0.1 s) and gave up after
 * 5 s with "database is locked". */
static int busy_wait(void *arg, int tries)
{
    queue_store *s = arg;
    double now = respite_now();
    if (tries == 0)
        s->busy_since = now;
    if (now - s->busy_since >= BUSY_TIMEOUT_MS / 1000.0)
        return 0;
    struct timespec pause = {0, BUSY_RETRY_NS};
    nanosleep(&pause, NULL);
    return 1;
}

/* ---------------------------------------------------------- statements */

static sqlite3_stmt *use(queue_store *s, int q)
{
    sqlite3_stmt *st = s->stmt[q];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

/* Runs a statement that returns no rows (or ignores them). */
static int run(queue_store *s, sqlite3_stmt *st, const char *doing, respite_error *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? RESPITE_OK : fail_db(s, s->db, doing, err);
}

/* Rows a count statement finds (count(*), total(size)), then, when there
 * are any, the statement that changes them, with the same parameters. */
static int count_then_run(queue_store *s, sqlite3_stmt *count, sqlite3_stmt *change, int64_t *rows, int64_t *total,
                          const char *doing, respite_error *err)
{
    *rows = *total = 0;
    int rc = sqlite3_step(count);
    if (rc == SQLITE_ROW) {
        *rows = sqlite3_column_int64(count, 0);
        *total = (int64_t)sqlite3_column_double(count, 1);
    }
    sqlite3_reset(count);
    if (rc != SQLITE_ROW)
        return fail_db(s, s->db, doing, err);
    return *rows ? run(s, change, doing, err) : RESPITE_OK;
}

static int exec(queue_store *s, const char *text, const char *doing, respite_error *err)
{
    return sqlite3_exec(s->db, text, NULL, NULL, NULL) == SQLITE_OK ? RESPITE_OK : fail_db(s, s->db, doing, err);
}

/* One text result of a pragma; rc is SQLite's. */
static int pragma_text_once(sqlite3 *db, const char *text, char *out, size_t size)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, text, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            const unsigned char *value = sqlite3_column_text(st, 0);
            snprintf(out, size, "%s", value ? (const char *)value : "");
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            out[0] = '\0';
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* As pragma_text_once, waiting out SQLITE_BUSY up to the busy timeout: some
 * answer it at once, without the busy handler (switching to WAL while
 * another connection creates the file or recovers the WAL index). */
static int pragma_text(sqlite3 *db, const char *text, char *out, size_t size)
{
    for (int waited_ms = 0;; waited_ms += 10) {
        int rc = pragma_text_once(db, text, out, size);
        if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= BUSY_TIMEOUT_MS)
            return rc;
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/* ------------------------------------------------------------- opening */

typedef enum open_result { OPENED, CORRUPT, FAILED } open_result;

/* The file's layout version (0: new or empty) in *version; FAILED with err
 * for a newer layout or another program's database (L4: left untouched). */
static open_result read_layout(queue_store *s, long *version, respite_error *err)
{
    char text[64];
    int rc = pragma_text(s->db, "PRAGMA user_version", text, sizeof text);
    if (rc != SQLITE_OK) {
        fail_db(s, s->db, "cannot read the layout version", err);
        return is_corruption(rc) ? CORRUPT : FAILED;
    }
    *version = strtol(text, NULL, 10);
    if (*version > STORE_LAYOUT) {
        respite_fail(err, RESPITE_E_STORAGE,
                     "queue file '%s' has layout version %ld; this respite reads version %d (update respite)", s->path,
                     *version, STORE_LAYOUT);
        return FAILED;
    }
    if (*version != 0)
        return OPENED;
    /* A new file, or a database that is not a queue: tables of another
     * application are not ours to take over. */
    rc = pragma_text(s->db, "SELECT count(*) FROM sqlite_schema", text, sizeof text);
    if (rc != SQLITE_OK) {
        fail_db(s, s->db, "cannot read the schema", err);
        return is_corruption(rc) ? CORRUPT : FAILED;
    }
    if (strcmp(text, "0") != 0) {
        respite_fail(err, RESPITE_E_STORAGE,
                     "queue file '%s' is an SQLite database of something else (layout version 0, %s tables or "
                     "indexes)",
                     s->path, text);
        return FAILED;
    }
    return OPENED;
}

/* Checks the file (when `check`), makes or reads its layout, rebases its
 * times after a reboot (L9) and prepares the statements. CORRUPT: set it
 * aside. */
static open_result open_file(queue_store *s, int durability, int check, respite_error *err)
{
    int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        fail_db(s, s->db, "cannot open", err);
        return is_corruption(rc) ? CORRUPT : FAILED;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_handler(s->db, busy_wait, s);
    /* Refuse a file that is not ours before WAL mode writes to it (L4),
     * in one read transaction (another process may be making the layout);
     * checked again under the write lock below, where the layout is made. */
    long version = 0;
    if (exec(s, "BEGIN", "cannot read", err) != RESPITE_OK)
        return FAILED;
    open_result foreign = read_layout(s, &version, err);
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL); /* it only read */
    if (foreign != OPENED)
        return foreign;
    char text[64];
    rc = pragma_text(s->db, "PRAGMA journal_mode = WAL", text, sizeof text);
    if (rc != SQLITE_OK || strcmp(text, "wal") != 0) {
        if (rc == SQLITE_OK)
            respite_fail(err, RESPITE_E_STORAGE, "queue file '%s': cannot use WAL mode (journal mode %s)", s->path,
                         text);
        else
            fail_db(s, s->db, "cannot use WAL mode", err);
        return is_corruption(rc) ? CORRUPT : FAILED;
    }
    rc = check ? pragma_text(s->db, "PRAGMA quick_check", text, sizeof text) : SQLITE_OK;
    if (!check)
        strcpy(text, "ok");
    if (rc != SQLITE_OK || strcmp(text, "ok") != 0) {
        if (rc == SQLITE_OK || is_corruption(rc)) {
            respite_fail(err, RESPITE_E_STORAGE, "queue file '%s' is corrupt: %s", s->path,
                         rc == SQLITE_OK ? text : sqlite3_errmsg(s->db));
            return CORRUPT;
        }
        fail_db(s, s->db, "cannot check", err);
        return FAILED;
    }
    if (exec(s, durability == RESPITE_DURABILITY_FULL ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
             "cannot set durability", err) != RESPITE_OK)
        return FAILED;

    /* The layout, made once by whichever process comes first. */
    if (exec(s, "BEGIN IMMEDIATE", "cannot lock", err) != RESPITE_OK)
        return is_corruption(sqlite3_errcode(s->db)) ? CORRUPT : FAILED;
    open_result result = FAILED;
    result = read_layout(s, &version, err);
    if (result != OPENED)
        goto rollback;
    result = FAILED;
    if (version == 0) {
        if (exec(s, schema, "cannot make the layout", err) != RESPITE_OK)
            goto rollback;
    } else if (version == 1 && exec(s, from_layout_1, "cannot move to layout version 2", err) != RESPITE_OK) {
        goto rollback;
    }
    for (int q = 0; q < Q_COUNT_; q++) {
        if (sqlite3_prepare_v3(s->db, sql[q], -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[q], NULL) != SQLITE_OK) {
            fail_db(s, s->db, "cannot prepare", err);
            result = is_corruption(sqlite3_errcode(s->db)) ? CORRUPT : FAILED;
            goto rollback;
        }
    }

    /* L9: after a reboot, move every time by the change of the clock
     * offset and clear every claim (no process of that boot lives). */
    read_boot_id(s->boot_id, sizeof s->boot_id);
    double offset = clock_offset();
    sqlite3_stmt *st = NULL;
    char stored_boot[40] = "";
    double stored_offset = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT boot_id, clock_offset FROM meta", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *b = sqlite3_column_text(st, 0);
        snprintf(stored_boot, sizeof stored_boot, "%s", b ? (const char *)b : "");
        stored_offset = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    if (s->boot_id[0] && stored_boot[0] && strcmp(stored_boot, s->boot_id) != 0) {
        char rebase[500];
        snprintf(rebase, sizeof rebase,
                 "UPDATE entries SET queued_at = queued_at + (%.17g), chain_at = chain_at + (%.17g), "
                 "lease_owner = NULL, lease_pid = NULL, lease_until = NULL;"
                 "UPDATE counts SET in_flight = 0, in_flight_bytes = 0;",
                 stored_offset - offset, stored_offset - offset);
        if (exec(s, rebase, "cannot carry times over a reboot", err) != RESPITE_OK)
            goto rollback;
    }
    sqlite3_stmt *save = use(s, Q_META_SAVE);
    sqlite3_bind_text(save, 1, s->boot_id, -1, SQLITE_STATIC);
    sqlite3_bind_double(save, 2, offset);
    if (run(s, save, "cannot record the clock", err) != RESPITE_OK)
        goto rollback;
    s->offset_saved_at = respite_now();
    if (exec(s, "COMMIT", "cannot commit", err) != RESPITE_OK)
        goto rollback;
    return OPENED;
rollback:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return result;
}

static void close_file(queue_store *s)
{
    for (int q = 0; q < Q_COUNT_; q++) {
        sqlite3_finalize(s->stmt[q]);
        s->stmt[q] = NULL;
    }
    sqlite3_close(s->db);
    s->db = NULL;
}

/* The events a corrupt file held, when it can still tell; else -1. */
static int64_t count_lost(queue_store *s)
{
    char text[32];
    if (!s->db)
        return -1;
    if (pragma_text(s->db,
                    "SELECT max(last_id, coalesce((SELECT max(id) FROM entries), 0)) - delivered - "
                    "dropped_capacity - expired - retries_exhausted - discarded FROM counts",
                    text, sizeof text) == SQLITE_OK &&
        text[0])
        return strtoll(text, NULL, 10);
    if (pragma_text(s->db, "SELECT count(*) FROM entries", text, sizeof text) == SQLITE_OK && text[0])
        return strtoll(text, NULL, 10);
    return -1;
}

/* L8: <path>.corrupt-<UTC time> with its -wal and -shm. */
static int set_aside(queue_store *s, respite_error *err)
{
    char stamp[32];
    time_t t = time(NULL);
    struct tm utc;
    gmtime_r(&t, &utc);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
    size_t size = strlen(s->path) + 64;
    char *aside = malloc(size), *from = malloc(size), *to = malloc(size);
    int status = RESPITE_OK;
    if (!aside || !from || !to) {
        status = respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory naming a corrupt queue file");
        goto out;
    }
    snprintf(aside, size, "%s.corrupt-%s", s->path, stamp);
    for (int n = 2; access(aside, F_OK) == 0 && n < 1000; n++)
        snprintf(aside, size, "%s.corrupt-%s-%d", s->path, stamp, n);
    if (rename(s->path, aside) != 0) {
        /* ENOENT: another process opening it at the same time moved it first. */
        status = errno == ENOENT ? RESPITE_E_CLOSED
                                 : respite_fail(err, RESPITE_E_STORAGE,
                                                "queue file '%s' is corrupt and cannot be moved aside: %s", s->path,
                                                strerror(errno));
        goto out;
    }
    static const char *const sidecars[] = {"-wal", "-shm"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, size, "%s%s", s->path, sidecars[i]);
        snprintf(to, size, "%s%s", aside, sidecars[i]);
        if (rename(from, to) != 0 && errno != ENOENT)
            unlink(from); /* it belongs to the corrupt file: never to the new one */
    }
out:
    free(aside);
    free(from);
    free(to);
    return status;
}

queue_store *respite_store_open(const char *path, int durability, double lease_seconds, int *set_aside_out,
                                int64_t *lost, respite_error *err)
{
    *set_aside_out = 0;
    *lost = 0;
    queue_store *s = calloc(1, sizeof *s);
    if (s)
        s->path = strdup(path);
    if (!s || !s->path) {
        free(s);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory opening a queue file");
        return NULL;
    }
    s->owner = (int64_t)(respite_os_seed() >> 1);
    if (s->owner == 0)
        s->owner = 1;
    s->pid = (int)getpid();
    s->lease_seconds = lease_seconds;
    /* L8: the integrity check costs a read of the whole file, so only the
     * first opener pays it: the one that finds no other handle's shared
     * lock (after every process closed the file, or crashed). While a
     * worker holds the file, each PHP request opens it cheaply. */
    size_t size = strlen(path) + sizeof "-open";
    char *lock_path = malloc(size);
    s->open_fd = -1;
    if (lock_path) {
        snprintf(lock_path, size, "%s-open", path);
        s->open_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        free(lock_path);
    }
    int alone = s->open_fd < 0 || flock(s->open_fd, LOCK_EX | LOCK_NB) == 0;
    open_result r = open_file(s, durability, alone, err);
    if (r == CORRUPT) {
        /* Once: a new file that fails too is an error, never a loop. */
        *lost = count_lost(s);
        close_file(s);
        int moved = set_aside(s, err);
        if (moved == RESPITE_OK || moved == RESPITE_E_CLOSED) {
            *set_aside_out = moved == RESPITE_OK;
            if (moved != RESPITE_OK)
                *lost = 0;
            respite_error_clear(err);
            r = open_file(s, durability, 1, err);
            if (r == CORRUPT)
                r = FAILED;
        }
    }
    if (r != OPENED) {
        respite_store_close(s);
        return NULL;
    }
    if (s->open_fd >= 0)
        flock(s->open_fd, LOCK_SH); /* from exclusive, or taken now */
    return s;
}

int respite_store_inherited(const queue_store *s)
{
    return s->pid != (int)getpid();
}

void respite_store_close(queue_store *s)
{
    if (!s || respite_store_inherited(s))
        return; /* the parent's connection: closing it here could end its locks or its WAL */
    close_file(s);
    if (s->open_fd >= 0)
        close(s->open_fd);
    free(s->path);
    free(s);
}

/* -------------------------------------------------------- transactions */

static void figures_from(sqlite3_stmt *st, respite_queue_stats *stats)
{
    int col = 0;
#define FIGURE_READ_(f) stats->f = sqlite3_column_int64(st, col++);
    STORE_FIGURES(FIGURE_READ_)
#undef FIGURE_READ_
}

static int load(queue_store *s, respite_queue_stats *stats, respite_error *err)
{
    sqlite3_stmt *st = use(s, Q_COUNTS_LOAD);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return rc == SQLITE_DONE ? respite_fail(err, RESPITE_E_STORAGE, "queue file '%s' has no counts", s->path)
                                 : fail_db(s, s->db, "cannot read the figures", err);
    }
    figures_from(st, stats);
    int col = FIGURE_COUNT;
    s->removed_bytes = sqlite3_column_int64(st, col++);
    s->last_id = sqlite3_column_int64(st, col++);
    s->last_total = sqlite3_column_int64(st, col++);
    s->head_place = sqlite3_column_int64(st, col++);
    s->chain_time = -INFINITY;
    if (sqlite3_column_type(st, col) != SQLITE_NULL) {
        /* Rows added since counts was last written. */
        int64_t last_row = sqlite3_column_int64(st, col);
        if (last_row > s->last_id) {
            s->last_id = last_row;
            s->last_total = sqlite3_column_int64(st, col + 1);
        }
        s->chain_time = sqlite3_column_double(st, col + 2);
    }
    sqlite3_reset(st);
    stats->accepted = s->last_id;
    stats->pending = stats->accepted - stats->delivered - stats->dropped_capacity - stats->expired -
                     stats->retries_exhausted - stats->discarded - stats->in_flight;
    stats->pending_bytes = s->last_total - s->removed_bytes - stats->in_flight_bytes;
    return RESPITE_OK;
}

/* Figures equal as far as the file keeps them. */
static int same_figures(const respite_queue_stats *a, const respite_queue_stats *b)
{
#define FIGURE_SAME_(f) a->f == b->f &&
    return STORE_FIGURES(FIGURE_SAME_) 1;
#undef FIGURE_SAME_
}

int respite_store_begin(queue_store *s, respite_queue_stats *stats, respite_error *err)
{
    if (run(s, use(s, Q_BEGIN), "cannot lock", err) != RESPITE_OK)
        return RESPITE_E_STORAGE;
    int status = load(s, stats, err);
    if (status != RESPITE_OK) {
        respite_store_rollback(s);
        return status;
    }
    s->loaded = *stats;
    s->loaded_removed_bytes = s->removed_bytes;
    s->loaded_head_place = s->head_place;
    s->changes_at_begin = sqlite3_total_changes64(s->db);
    return RESPITE_OK;
}

int respite_store_commit(queue_store *s, const respite_queue_stats *stats, respite_error *err)
{
    /* What the rows do not say: the bytes gone for good. */
    s->removed_bytes = s->last_total - stats->pending_bytes - stats->in_flight_bytes;
    int counts_changed = !same_figures(stats, &s->loaded) || s->removed_bytes != s->loaded_removed_bytes ||
                         s->head_place != s->loaded_head_place;
    /* An idle sender's expire every few milliseconds must not write. */
    if (sqlite3_total_changes64(s->db) == s->changes_at_begin && !counts_changed) {
        respite_store_rollback(s);
        return RESPITE_OK;
    }
    int status = RESPITE_OK;
    sqlite3_stmt *st;
    if (counts_changed) { /* not for enqueues alone: their rows say it all */
        st = use(s, Q_COUNTS_SAVE);
        int col = 1;
#define FIGURE_BIND_(f) sqlite3_bind_int64(st, col++, stats->f);
        STORE_FIGURES(FIGURE_BIND_)
#undef FIGURE_BIND_
        sqlite3_bind_int64(st, col++, s->removed_bytes);
        sqlite3_bind_int64(st, col++, s->last_id);
        sqlite3_bind_int64(st, col++, s->last_total);
        sqlite3_bind_int64(st, col++, s->head_place);
        status = run(s, st, "cannot write the figures", err);
    }
    double now = respite_now();
    if (status == RESPITE_OK && now - s->offset_saved_at >= OFFSET_REFRESH_SECONDS) {
        st = use(s, Q_META_SAVE);
        sqlite3_bind_text(st, 1, s->boot_id, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 2, clock_offset());
        status = run(s, st, "cannot record the clock", err);
        if (status == RESPITE_OK)
            s->offset_saved_at = now;
    }
    if (status == RESPITE_OK)
        status = run(s, use(s, Q_COMMIT), "cannot commit", err);
    if (status != RESPITE_OK)
        respite_store_rollback(s);
    return status;
}

void respite_store_rollback(queue_store *s)
{
    if (!respite_store_inherited(s) && !sqlite3_get_autocommit(s->db))
        run(s, use(s, Q_ROLLBACK), "cannot roll back", NULL);
}

int respite_store_read(queue_store *s, respite_queue_stats *stats, respite_error *err)
{
    return load(s, stats, err);
}

/* ----------------------------------------------------------------- rows */

int64_t respite_store_next_id(queue_store *s)
{
    return ++s->last_id;
}

int respite_store_insert(queue_store *s, int64_t id, const char *data, size_t size, double queued_at,
                         respite_error *err)
{
    sqlite3_stmt *st = use(s, Q_INSERT);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_blob64(st, 2, data, size, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)size);
    sqlite3_bind_double(st, 4, queued_at);
    if (queued_at < s->chain_time) /* off the chain: expiry finds it by age */
        sqlite3_bind_double(st, 5, s->chain_time);
    else
        s->chain_time = queued_at;
    s->last_total += (int64_t)size;
    sqlite3_bind_int64(st, 6, s->last_total);
    return run(s, st, "cannot store an event", err);
}

int respite_store_head(queue_store *s, store_row *row, int *found, respite_error *err)
{
    sqlite3_stmt *st = use(s, Q_HEAD_REQUEUED);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        st = use(s, Q_HEAD);
        rc = sqlite3_step(st);
    }
    *found = rc == SQLITE_ROW;
    if (*found) {
        row->id = sqlite3_column_int64(st, 0);
        row->queued_at = sqlite3_column_double(st, 1);
        row->attempts = sqlite3_column_int(st, 2);
        row->size = sqlite3_column_int64(st, 3);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? RESPITE_OK : fail_db(s, s->db, "cannot read the head", err);
}

int respite_store_delete(queue_store *s, int64_t id, respite_error *err)
{
    sqlite3_stmt *st = use(s, Q_DELETE);
    sqlite3_bind_int64(st, 1, id);
    return run(s, st, "cannot delete an event", err);
}

int respite_store_claim(queue_store *s, int64_t id, double now, queue_event **out, respite_error *err)
{
    *out = NULL;
    sqlite3_stmt *st = use(s, Q_CLAIM);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, s->owner);
    sqlite3_bind_int(st, 3, s->pid);
    sqlite3_bind_double(st, 4, now + s->lease_seconds);
    int status = run(s, st, "cannot claim an event", err);
    if (status != RESPITE_OK)
        return status;
    st = use(s, Q_READ);
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const void *blob = sqlite3_column_blob(st, 0);
        size_t size = (size_t)sqlite3_column_bytes(st, 0);
        queue_event *e = malloc(sizeof *e + size + 1);
        if (!e) {
            status = respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory reading an event of %zu bytes", size);
        } else {
            if (size)
                memcpy(e->data, blob, size);
            e->data[size] = '\0';
            e->size = size;
            e->id = id;
            e->queued_at = sqlite3_column_double(st, 1);
            e->attempts = sqlite3_column_int(st, 2);
            *out = e;
        }
    } else if (rc == SQLITE_DONE) {
        status = respite_fail(err, RESPITE_E_STORAGE, "queue file '%s': event %lld vanished while claimed", s->path,
                              (long long)id);
    } else {
        status = fail_db(s, s->db, "cannot read an event", err);
    }
    sqlite3_reset(st);
    return status;
}

int respite_store_finish(queue_store *s, int64_t id, int *where, respite_error *err)
{
    sqlite3_stmt *st = use(s, Q_OWNER);
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    *where = STORE_ELSEWHERE;
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_NULL)
            *where = STORE_PENDING;
        else if (sqlite3_column_int64(st, 0) == s->owner)
            *where = STORE_MINE;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail_db(s, s->db, "cannot settle an event", err);
    return *where == STORE_ELSEWHERE ? RESPITE_OK : respite_store_delete(s, id, err);
}

int respite_store_release(queue_store *s, int64_t id, int attempts, int retried, int *mine, respite_error *err)
{
    sqlite3_stmt *st = use(s, Q_RELEASE);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, s->owner);
    sqlite3_bind_int64(st, 3, s->head_place - 1);
    sqlite3_bind_int(st, 4, attempts);
    sqlite3_bind_int(st, 5, retried ? 1 : 0);
    int status = run(s, st, "cannot put an event back", err);
    *mine = status == RESPITE_OK && sqlite3_changes(s->db) == 1;
    if (*mine)
        s->head_place--;
    return status;
}

int respite_store_expire(queue_store *s, double now, double ttl, int64_t *rows, int64_t *bytes, respite_error *err)
{
    /* The chain first: its expired rows are those below its first live one. */
    sqlite3_stmt *st = use(s, Q_CHAIN_END);
    sqlite3_bind_double(st, 2, now);
    sqlite3_bind_double(st, 3, ttl);
    int rc = sqlite3_step(st);
    int64_t end = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : INT64_MAX;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail_db(s, s->db, "cannot expire events", err);
    sqlite3_stmt *count = use(s, Q_EXPIRE_CHAIN_COUNT), *change = use(s, Q_EXPIRE_CHAIN);
    for (int i = 0; i < 2; i++) {
        st = i ? change : count;
        sqlite3_bind_int64(st, 1, end);
        sqlite3_bind_double(st, 2, now);
        sqlite3_bind_double(st, 3, ttl);
    }
    int64_t chain_rows, chain_bytes;
    int status = count_then_run(s, count, change, &chain_rows, &chain_bytes, "cannot expire events", err);
    if (status != RESPITE_OK)
        return status;
    /* Then the rows aside, by age. A bound a little past now - ttl, so
     * rounding never hides a row the exact test would drop. */
    count = use(s, Q_EXPIRE_COUNT);
    change = use(s, Q_EXPIRE);
    double bound = now - ttl + 1e-9 * (fabs(now) + ttl + 1.0);
    for (int i = 0; i < 2; i++) {
        st = i ? change : count;
        sqlite3_bind_double(st, 1, bound);
        sqlite3_bind_double(st, 2, now);
        sqlite3_bind_double(st, 3, ttl);
    }
    status = count_then_run(s, count, change, rows, bytes, "cannot expire events", err);
    *rows += chain_rows;
    *bytes += chain_bytes;
    return status;
}

int respite_store_reclaim(queue_store *s, double now, int64_t *rows, int64_t *bytes, respite_error *err)
{
    sqlite3_stmt *count = use(s, Q_RECLAIM_COUNT), *change = use(s, Q_RECLAIM);
    for (int i = 0; i < 2; i++) {
        sqlite3_stmt *st = i ? change : count;
        sqlite3_bind_int64(st, 1, s->owner);
        sqlite3_bind_double(st, 2, now);
    }
    return count_then_run(s, count, change, rows, bytes, "cannot take back ended claims", err);
}

/* Processes share one gate through a file (docs/spec.md section 9) while
 * they are killed: 4 worker processes x 2 threads hammer it with mixed
 * outcomes for RESPITE_STRESS_SECONDS (default 10) while this process kills
 * a worker with SIGKILL every 100-300 ms and starts a new one. Every other
 * kill hits a worker that holds the slot's lock (inside a slow event
 * callback, which runs under it); now and then a worker also kills itself
 * while it holds the probe. An observer process drains the events. Every
 * thread writes what it did into a shared results area as it goes, so a
 * killed worker's work up to its death counts. Afterwards:
 *   - no call (nor an attach) ever took longer than probe_timeout (H6: no
 *     process waits for a dead one); a stuck call is caught while it hangs;
 *   - exactly one probe per pause (P = 1): no generation has two probes,
 *     every generation that ended had one (H5); after a probe's process
 *     died, the next probe came a pause later, not a probe timeout (H7);
 *   - the statistics add up: the slot's counts lie between what exited
 *     workers did and what every worker did, counting a call in flight at
 *     death (H8); the events match the slot's trips and generations (H9);
 *   - then a phase without kills: the counts of processes that exit
 *     normally are folded exactly (H8).
 * Also runs under ASan and TSan (scripts/test.d/20-sanitizers.sh): this
 * process never starts a thread, so forking is safe there. */
#include "respite.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define THREADS 2
#define N 5
#define WINDOW 0.05
#define RECOVERY 0.02
#define MAX_RECOVERY 0.1
/* Also the bound on any call's duration: generous, because the test shares
 * 2 cores with other builds and a preempted thread looks like a slow call. */
#define PROBE_TIMEOUT 1.0
#define RECORDS (1 << 18)
#define FINAL_CALLS 20000

enum { IDLE, IN_CHECK, IN_COUNTED_REPORT, IN_REPORT, IN_ATTACH };

/* One worker thread's account, written only by that thread. */
struct thread_slot {
    _Atomic int64_t checks, admitted, refused, reports, counted_reports, errors;
    _Atomic int64_t lost_probes;   /* probes it never reported (alive) */
    _Atomic int64_t max_ns[IN_ATTACH + 1]; /* longest call of each kind */
    _Atomic int64_t call_started_ns;
    _Atomic int in_call;           /* IDLE or what it is inside */
    _Atomic int in_callback;       /* inside the event callback: holding the slot's lock */
    _Atomic int64_t dying_with_probe; /* the probe's generation, set just before it kills itself */
    char pad[64];
};

struct probe_record {
    int64_t generation;
    double at; /* when it was admitted */
    int worker, thread;
};

struct shared {
    _Atomic int stop, observer_stop, observer_ready;
    struct thread_slot slots[WORKERS][THREADS];
    _Atomic int64_t probe_count;
    struct probe_record probes[RECORDS];
    _Atomic int64_t events[RESPITE_EVENT_TYPE_COUNT];
    _Atomic int64_t observer_dropped, observer_errors, observer_max_outstanding;
    _Atomic int64_t max_call_ns;   /* the observer's longest call */
};

static struct shared *shm;
static _Thread_local struct thread_slot *my_slot; /* a worker thread's own */
static char gate_path[256];
static double run_seconds = 10.0;
static int failures;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fprintf(stderr, "\n");                                                        \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

static int64_t now_ns(void)
{
    return (int64_t)(respite_now() * 1e9);
}

static void note_max(_Atomic int64_t *max, int64_t value)
{
    int64_t seen = atomic_load(max);
    while (value > seen && !atomic_compare_exchange_weak(max, &seen, value))
        ;
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void sleep_ms(double ms)
{
    struct timespec pause = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
    nanosleep(&pause, NULL);
}

static respite_gate *open_gate(respite_error *err)
{
    respite_settings *s = respite_settings_new("gate", err);
    if (!s)
        return NULL;
    int rc = respite_settings_set_text(s, "shared_path", gate_path, err);
    rc |= respite_settings_set_text(s, "name", "stress", err);
    rc |= respite_settings_set_number(s, "failures_to_enter_recovery", N, err);
    rc |= respite_settings_set_number(s, "failures_window_seconds", WINDOW, err);
    rc |= respite_settings_set_number(s, "recovery_seconds", RECOVERY, err);
    rc |= respite_settings_set_number(s, "recovery_multiplier", 2.0, err);
    rc |= respite_settings_set_number(s, "max_recovery_seconds", MAX_RECOVERY, err);
    rc |= respite_settings_set_number(s, "probes", 1, err);
    rc |= respite_settings_set_number(s, "probe_timeout_seconds", PROBE_TIMEOUT, err);
    rc |= respite_settings_set_number(s, "jitter", 0.2, err);
    respite_gate *gate = rc ? NULL : respite_gate_new(s, err);
    respite_settings_free(s);
    return gate;
}

/* Failing for the first 150 ms of every 400 ms (the same clock everywhere). */
static int failing_phase(double now)
{
    return fmod(now, 0.4) < 0.15;
}

struct worker_thread {
    pthread_t thread;
    respite_gate *gate;
    struct thread_slot *slot;
    int worker, index;
    int final_phase;    /* no kills, no lost probes: FINAL_CALLS checks then stop */
};

static void begin(struct thread_slot *slot, int what)
{
    atomic_store(&slot->call_started_ns, now_ns());
    atomic_store(&slot->in_call, what);
}

static void end(struct thread_slot *slot)
{
    note_max(&slot->max_ns[atomic_load(&slot->in_call)], now_ns() - atomic_load(&slot->call_started_ns));
    atomic_store(&slot->in_call, IDLE);
}

static void *hammer(void *arg)
{
    struct worker_thread *w = arg;
    struct thread_slot *slot = w->slot;
    my_slot = slot;
    uint64_t rng = 0x9E3779B97F4A7C15u ^ ((uint64_t)getpid() << 8) ^ (uint64_t)w->index;
    respite_error err = {0};
    int64_t calls = 0;
    while (!atomic_load(&shm->stop) && !(w->final_phase && calls >= FINAL_CALLS)) {
        calls++;
        double now = respite_now();
        respite_decision d;
        begin(slot, IN_CHECK);
        int rc = respite_gate_check(w->gate, now, &d, &err);
        if (rc == RESPITE_OK && d.allowed && d.probe) {
            int64_t i = atomic_fetch_add(&shm->probe_count, 1);
            if (i < RECORDS)
                shm->probes[i] = (struct probe_record){d.permit / RESPITE_GATE_PERMIT_SLOTS, now, w->worker, w->index};
        }
        if (rc != RESPITE_OK)
            atomic_fetch_add(&slot->errors, 1);
        else {
            atomic_fetch_add(&slot->checks, 1);
            atomic_fetch_add(d.allowed ? &slot->admitted : &slot->refused, 1);
        }
        end(slot);
        if (rc != RESPITE_OK || !d.allowed)
            continue;
        uint64_t r = next_random(&rng) % 1000;
        if (d.probe && !w->final_phase && r < 20) { /* an outcome that never comes: G10 times it out */
            atomic_fetch_add(&slot->lost_probes, 1);
            continue;
        }
        if (d.probe && !w->final_phase && r < 120) { /* dies holding the probe: H7 loses its lease */
            atomic_store(&slot->dying_with_probe, d.permit / RESPITE_GATE_PERMIT_SLOTS);
            raise(SIGKILL);
        }
        int outcome;
        if (failing_phase(now))
            outcome = r < 800 ? RESPITE_OUTCOME_SERVER_ERROR : RESPITE_OUTCOME_SUCCESS;
        else
            outcome = r < 990 ? RESPITE_OUTCOME_SUCCESS : RESPITE_OUTCOME_REQUEST_ERROR; /* 4xx: not counted */
        int counted = respite_outcome_counts(outcome, 0);
        begin(slot, counted ? IN_COUNTED_REPORT : IN_REPORT);
        rc = respite_gate_report(w->gate, d.permit, outcome, 0.0, respite_now(), &err);
        if (rc != RESPITE_OK)
            atomic_fetch_add(&slot->errors, 1);
        else {
            atomic_fetch_add(&slot->reports, 1);
            if (counted)
                atomic_fetch_add(&slot->counted_reports, 1);
        }
        end(slot);
    }
    return NULL;
}

/* The C callback runs under the slot's lock (gate.h): a slow one (3 ms)
 * gives the killer a lock holder to kill (H6). */
static void slow_callback(const respite_event *event, void *user_data)
{
    (void)event;
    (void)user_data;
    atomic_store(&my_slot->in_callback, 1);
    sleep_ms(3);
    atomic_store(&my_slot->in_callback, 0);
}

/* A worker process: attaches, runs THREADS threads, detaches. */
static void worker_main(int worker, int final_phase)
{
    struct thread_slot *first = &shm->slots[worker][0];
    respite_error err = {0};
    begin(first, IN_ATTACH);
    respite_gate *gate = open_gate(&err);
    end(first);
    if (!gate) {
        fprintf(stderr, "worker %d: %s\n", worker, err.message);
        atomic_fetch_add(&first->errors, 1);
        exit(1);
    }
    if (!final_phase)
        respite_gate_set_event_callback(gate, slow_callback, NULL, NULL);
    struct worker_thread threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        threads[t] = (struct worker_thread){.gate = gate, .slot = &shm->slots[worker][t], .worker = worker,
                                            .index = t, .final_phase = final_phase};
        pthread_create(&threads[t].thread, NULL, hammer, &threads[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t].thread, NULL);
    respite_gate_free(gate);
    exit(0);
}

/* Drains every event and watches the slot while the workers run (H9). */
static void observer_main(void)
{
    respite_error err = {0};
    respite_gate *gate = open_gate(&err);
    if (!gate) {
        fprintf(stderr, "observer: %s\n", err.message);
        exit(1);
    }
    atomic_store(&shm->observer_ready, 1);
    for (;;) {
        int last = atomic_load(&shm->observer_stop);
        respite_event ev;
        int got;
        int64_t start = now_ns();
        while ((got = respite_gate_next_event(gate, &ev, &err)) == 1)
            if (ev.type >= 0 && ev.type < RESPITE_EVENT_TYPE_COUNT)
                atomic_fetch_add(&shm->events[ev.type], 1);
        respite_gate_stats st;
        if (got < 0 || respite_gate_stats_get(gate, &st, &err) != RESPITE_OK)
            atomic_fetch_add(&shm->observer_errors, 1);
        else {
            note_max(&shm->observer_max_outstanding, st.probes_outstanding);
            atomic_store(&shm->observer_dropped, st.events_dropped);
        }
        note_max(&shm->max_call_ns, now_ns() - start);
        if (last)
            break;
        sleep_ms(2);
    }
    respite_gate_free(gate);
    exit(0);
}

/* What the supervisor adds up from the workers' accounts. */
struct totals {
    int64_t checks, admitted, refused, reports, counted_reports, errors, lost_probes;
    int64_t max_ns[IN_ATTACH + 1];
    /* calls in flight when a worker died: counted or not, they may have happened */
    int64_t dead_in_check, dead_in_counted_report, dead_in_report;
    int64_t kills, kills_in_lock, self_kills_with_probe, stuck_calls;
    int64_t died_holding[256]; /* generations whose probe's process killed itself */
};

static void account(int worker, int died, struct totals *all, struct totals *exited)
{
    for (int t = 0; t < THREADS; t++) {
        struct thread_slot *s = &shm->slots[worker][t];
        struct totals *both[2] = {all, died ? NULL : exited};
        for (int k = 0; k < 2; k++) {
            if (!both[k])
                continue;
            both[k]->checks += s->checks;
            both[k]->admitted += s->admitted;
            both[k]->refused += s->refused;
            both[k]->reports += s->reports;
            both[k]->counted_reports += s->counted_reports;
            both[k]->errors += s->errors;
            both[k]->lost_probes += s->lost_probes;
        }
        for (int k = 0; k <= IN_ATTACH; k++)
            if (s->max_ns[k] > all->max_ns[k])
                all->max_ns[k] = s->max_ns[k];
        if (died) {
            all->dead_in_check += s->in_call == IN_CHECK;
            all->dead_in_counted_report += s->in_call == IN_COUNTED_REPORT;
            all->dead_in_report += s->in_call == IN_REPORT;
            if (s->dying_with_probe) {
                if (all->self_kills_with_probe < 256)
                    all->died_holding[all->self_kills_with_probe] = s->dying_with_probe;
                all->self_kills_with_probe++;
            }
        }
        memset(s, 0, sizeof *s);
    }
}

static pid_t start(int worker, int final_phase)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        worker_main(worker, final_phase);
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    return pid;
}

/* A call that has been running longer than the probe timeout is stuck. */
static void watch(struct totals *all)
{
    int64_t now = now_ns();
    for (int w = 0; w < WORKERS; w++)
        for (int t = 0; t < THREADS; t++) {
            struct thread_slot *s = &shm->slots[w][t];
            if (s->in_call != IDLE && now - s->call_started_ns > (int64_t)(PROBE_TIMEOUT * 1e9)) {
                fprintf(stderr, "worker %d thread %d: a call has run for %.3fs\n", w, t,
                        (double)(now - s->call_started_ns) * 1e-9);
                all->stuck_calls++;
                s->call_started_ns = now; /* report it once a timeout */
            }
        }
}

/* Every other kill hits a worker holding the slot's lock (inside its slow
 * callback): the first seen within 200 ms, or -1. */
static int in_lock_worker(void)
{
    double deadline = respite_now() + 0.2;
    do {
        for (int w = 0; w < WORKERS; w++)
            for (int t = 0; t < THREADS; t++)
                if (atomic_load(&shm->slots[w][t].in_callback))
                    return w;
        sleep_ms(0.2);
    } while (respite_now() < deadline);
    return -1;
}

/* Waits for every worker in pids to exit on its own, at most `seconds`. */
static void wait_all(pid_t *pids, double seconds, struct totals *all, struct totals *exited)
{
    double deadline = respite_now() + seconds;
    int left = WORKERS;
    while (left > 0) {
        for (int w = 0; w < WORKERS; w++) {
            if (!pids[w])
                continue;
            int status;
            pid_t got = waitpid(pids[w], &status, WNOHANG);
            if (got == pids[w]) {
                int clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
                CHECK(clean, "worker %d exited with status %d", w, status);
                account(w, !clean, all, exited);
                pids[w] = 0;
                left--;
            }
        }
        watch(all);
        if (left > 0 && respite_now() > deadline) {
            for (int w = 0; w < WORKERS; w++)
                if (pids[w]) {
                    CHECK(0, "worker %d did not stop within %.0fs", w, seconds);
                    kill(pids[w], SIGKILL);
                    waitpid(pids[w], NULL, 0);
                    account(w, 1, all, exited);
                    pids[w] = 0;
                }
            break;
        }
        sleep_ms(5);
    }
}

static int read_slot(respite_shared_gate_info *out)
{
    respite_shared_gate_info gates[RESPITE_SHARED_GATE_SLOTS];
    int count = 0;
    respite_error err = {0};
    if (respite_shared_gates_read(gate_path, respite_now(), gates, RESPITE_SHARED_GATE_SLOTS, &count, &err) !=
        RESPITE_OK) {
        fprintf(stderr, "read %s: %s\n", gate_path, err.message);
        return -1;
    }
    for (int i = 0; i < count && i < RESPITE_SHARED_GATE_SLOTS; i++)
        if (strcmp(gates[i].name, "stress") == 0) {
            *out = gates[i];
            return 0;
        }
    fprintf(stderr, "read %s: no gate \"stress\" among %d\n", gate_path, count);
    return -1;
}

/* P = 1: generations 2..G-1 each had exactly one probe, G at most one. A
 * worker killed between the probe's admission and its record explains a
 * missing record (dead_in_check). */
static void check_probes(const respite_gate_stats *st, const struct totals *all, int verbose)
{
    int64_t records = atomic_load(&shm->probe_count);
    CHECK(records <= RECORDS, "%" PRId64 " probe records, room for %d", records, RECORDS);
    int64_t g = st->generation;
    int *per_generation = calloc((size_t)g + 2, sizeof *per_generation);
    double *admitted_at = calloc((size_t)g + 2, sizeof *admitted_at);
    int64_t out_of_range = 0;
    for (int64_t i = 0; i < records && i < RECORDS; i++) {
        int64_t gen = shm->probes[i].generation;
        if (gen < 2 || gen > g)
            out_of_range++;
        else {
            per_generation[gen]++;
            admitted_at[gen] = shm->probes[i].at;
        }
    }
    /* H7: a probe whose process died is lost as soon as a caller asks (once
     * this process has reaped it), so the next generation's probe comes a
     * pause (at most 0.1s) later, not after the probe timeout. */
    double longest_gap = 0;
    int64_t gaps = 0;
    for (int64_t k = 0; k < all->self_kills_with_probe && k < 256; k++) {
        int64_t gen = all->died_holding[k];
        if (gen < 2 || gen >= g || per_generation[gen] != 1 || per_generation[gen + 1] != 1)
            continue;
        double gap = admitted_at[gen + 1] - admitted_at[gen];
        gaps++;
        if (gap > longest_gap)
            longest_gap = gap;
        CHECK(gap < PROBE_TIMEOUT, "generation %" PRId64 ": its probe's process died, the next probe came %.3fs later",
              gen, gap);
    }
    if (verbose)
        printf("probes after a probe's process died: %" PRId64 ", longest gap %.3fs\n", gaps, longest_gap);
    free(admitted_at);
    CHECK(out_of_range == 0, "%" PRId64 " probes of generations outside 2..%" PRId64, out_of_range, g);
    int64_t doubles = 0, missing = 0;
    for (int64_t gen = 2; gen <= g; gen++) {
        if (per_generation[gen] > 1) {
            if (doubles++ < 5)
                fprintf(stderr, "generation %" PRId64 ": %d probes admitted\n", gen, per_generation[gen]);
        }
        if (gen < g && per_generation[gen] == 0)
            missing++;
    }
    free(per_generation);
    CHECK(doubles == 0, "%" PRId64 " generations with more than one probe", doubles);
    CHECK(missing <= all->dead_in_check, "%" PRId64 " ended generations without a probe record, %" PRId64
          " workers died inside a check", missing, all->dead_in_check);
    /* The slot counts every probe, including those of workers killed before they recorded it. */
    CHECK(st->probes >= g - 2 && st->probes <= g - 1, "slot probes %" PRId64 ", generation %" PRId64, st->probes, g);
    CHECK(records <= st->probes && st->probes <= records + all->dead_in_check,
          "slot probes %" PRId64 ", recorded %" PRId64 ", died in a check %" PRId64, st->probes, records,
          all->dead_in_check);
}

int main(void)
{
    const char *env = getenv("RESPITE_STRESS_SECONDS");
    if (env && atof(env) > 0)
        run_seconds = atof(env);
    char dir[] = "/tmp/respite-stress-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(gate_path, sizeof gate_path, "%s/gates", dir);
    shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shm == MAP_FAILED) {
        perror("mmap");
        return 1;
    }

    fflush(NULL);
    pid_t observer = fork();
    if (observer == 0)
        observer_main();
    while (!atomic_load(&shm->observer_ready)) {
        int status;
        if (waitpid(observer, &status, WNOHANG) == observer) {
            fprintf(stderr, "the observer could not start\n");
            return 1;
        }
        sleep_ms(1);
    }

    struct totals all = {0}, exited = {0};
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++)
        pids[w] = start(w, 0);
    uint64_t rng = 0xD1B54A32D192ED03u ^ (uint64_t)getpid();
    double started = respite_now(), next_kill = started + 0.1 + (double)(next_random(&rng) % 200) / 1000.0;
    while (respite_now() - started < run_seconds) {
        sleep_ms(5);
        /* Workers that killed themselves holding a probe. */
        for (int w = 0; w < WORKERS; w++) {
            int status;
            if (waitpid(pids[w], &status, WNOHANG) == pids[w]) {
                CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "worker %d ended by itself (status %d)",
                      w, status);
                account(w, 1, &all, &exited);
                pids[w] = start(w, 0);
            }
        }
        watch(&all);
        if (respite_now() >= next_kill) {
            int w = (all.kills % 2) ? in_lock_worker() : -1;
            if (w >= 0)
                all.kills_in_lock++;
            else
                w = (int)(next_random(&rng) % WORKERS);
            kill(pids[w], SIGKILL);
            waitpid(pids[w], NULL, 0);
            all.kills++;
            account(w, 1, &all, &exited);
            pids[w] = start(w, 0);
            next_kill = respite_now() + 0.1 + (double)(next_random(&rng) % 200) / 1000.0;
        }
    }
    atomic_store(&shm->stop, 1);
    wait_all(pids, PROBE_TIMEOUT + 5.0, &all, &exited);
    atomic_store(&shm->observer_stop, 1);
    int status = -1;
    for (double deadline = respite_now() + PROBE_TIMEOUT + 5.0; waitpid(observer, &status, WNOHANG) != observer;) {
        if (respite_now() > deadline) {
            kill(observer, SIGKILL);
            waitpid(observer, &status, 0);
            break;
        }
        sleep_ms(5);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "observer status %d", status);
    if (all.stuck_calls || failures) { /* a process is stuck in the slot: reading it could hang too */
        fprintf(stderr, "%" PRId64 " calls ran longer than the probe timeout; %d invariant(s) failed\n",
                all.stuck_calls, failures + (all.stuck_calls > 0));
        return 1;
    }

    respite_shared_gate_info slot;
    if (read_slot(&slot) != 0)
        return 1;
    respite_gate_stats st = slot.stats;
    int64_t started_events = shm->events[RESPITE_EVENT_RECOVERY_STARTED];
    int64_t extended_events = shm->events[RESPITE_EVENT_RECOVERY_EXTENDED];
    int64_t recovered_events = shm->events[RESPITE_EVENT_RECOVERED];
    printf("%.1fs: %" PRId64 " kills (%" PRId64 " holding the lock), %" PRId64 " deaths holding a probe, %" PRId64 " lost probes; checks %" PRId64
           " (%" PRId64 " by workers that exited), reports %" PRId64 ", counted %" PRId64 "\n",
           run_seconds, all.kills, all.kills_in_lock, all.self_kills_with_probe, all.lost_probes, all.checks, exited.checks, all.reports,
           all.counted_reports);
    printf("slot: admitted %" PRId64 ", refused %" PRId64 ", reported %" PRId64 ", counted %" PRId64
           ", trips %" PRId64 ", probes %" PRId64 ", probe timeouts %" PRId64 ", generation %" PRId64
           "; events: started %" PRId64 ", extended %" PRId64 ", recovered %" PRId64 "\n",
           st.admitted, st.refused, st.reported, st.counted_failures, st.trips, st.probes, st.probe_timeouts,
           st.generation, started_events, extended_events, recovered_events);
    printf("longest: check %.3f ms, counted failure %.3f ms, other report %.3f ms, attach %.3f ms, observer pass "
           "%.3f ms\n",
           (double)all.max_ns[IN_CHECK] * 1e-6, (double)all.max_ns[IN_COUNTED_REPORT] * 1e-6,
           (double)all.max_ns[IN_REPORT] * 1e-6, (double)all.max_ns[IN_ATTACH] * 1e-6, (double)shm->max_call_ns * 1e-6);

    /* No process ever waited for a dead one. */
    CHECK(all.stuck_calls == 0, "%" PRId64 " calls ran longer than the probe timeout", all.stuck_calls);
    for (int k = IN_CHECK; k <= IN_ATTACH; k++)
        CHECK(all.max_ns[k] < (int64_t)(PROBE_TIMEOUT * 1e9), "longest call of kind %d %.3fs", k,
              (double)all.max_ns[k] * 1e-9);
    CHECK(shm->max_call_ns < (int64_t)(PROBE_TIMEOUT * 1e9), "observer's longest pass %.3fs",
          (double)shm->max_call_ns * 1e-9);
    CHECK(all.errors == 0 && shm->observer_errors == 0, "%" PRId64 " worker errors, %" PRId64 " observer errors",
          all.errors, (int64_t)shm->observer_errors);

    check_probes(&st, &all, 1);
    CHECK(shm->observer_max_outstanding <= 1, "%" PRId64 " probes outstanding at once",
          (int64_t)shm->observer_max_outstanding);
    /* Every probe whose outcome never came timed out or lost its lease,
     * unless it is the one still outstanding. */
    CHECK(st.probe_timeouts >= all.lost_probes + all.self_kills_with_probe - st.probes_outstanding,
          "probe timeouts %" PRId64 ", lost %" PRId64 ", died holding one %" PRId64, st.probe_timeouts,
          all.lost_probes, all.self_kills_with_probe);

    /* H8: fast-path counts of a killed worker may die unfolded; of one that exited, never. */
    CHECK(st.admitted + st.refused >= exited.checks && st.admitted + st.refused <= all.checks + all.dead_in_check,
          "slot checks %" PRId64 ", by exited workers %" PRId64 ", by all %" PRId64 " + %" PRId64 " in flight",
          st.admitted + st.refused, exited.checks, all.checks, all.dead_in_check);
    CHECK(st.reported >= exited.reports &&
              st.reported <= all.reports + all.dead_in_report + all.dead_in_counted_report,
          "slot reports %" PRId64 ", by exited workers %" PRId64 ", by all %" PRId64, st.reported, exited.reports,
          all.reports);
    /* Counted failures live in the slot: at most every counted report, at
     * least N per trip plus the failed probes. */
    CHECK(st.counted_failures <= all.counted_reports + all.dead_in_counted_report,
          "slot counted %" PRId64 ", counted reports %" PRId64, st.counted_failures, all.counted_reports);
    CHECK(st.counted_failures >= st.trips * N + (extended_events - st.probe_timeouts),
          "slot counted %" PRId64 ", trips %" PRId64 ", failed probes %" PRId64, st.counted_failures, st.trips,
          extended_events - st.probe_timeouts);

    /* H9: the observer saw every transition once. */
    CHECK(shm->observer_dropped == 0, "the observer dropped %" PRId64 " events", (int64_t)shm->observer_dropped);
    CHECK(started_events == st.trips, "recovery_started %" PRId64 ", trips %" PRId64, started_events, st.trips);
    CHECK(started_events + extended_events == st.generation - 1, "started %" PRId64 " + extended %" PRId64
          ", generation %" PRId64, started_events, extended_events, st.generation);
    CHECK(recovered_events + extended_events == st.probes - st.probes_outstanding,
          "recovered %" PRId64 " + extended %" PRId64 ", probes %" PRId64 " - outstanding %d", recovered_events,
          extended_events, st.probes, st.probes_outstanding);

    /* The run exercised what it claims to. */
    CHECK(all.kills >= (int64_t)(run_seconds * 2), "only %" PRId64 " kills", all.kills);
    CHECK(all.kills_in_lock >= all.kills / 8, "only %" PRId64 " of %" PRId64 " kills hit a lock holder",
          all.kills_in_lock, all.kills);
    CHECK(st.trips > 0 && st.refused > 0 && st.probes > 0 && recovered_events > 0,
          "trips %" PRId64 ", refused %" PRId64 ", probes %" PRId64 ", recovered %" PRId64, st.trips, st.refused,
          st.probes, recovered_events);
    CHECK(st.probe_timeouts > 0 && all.self_kills_with_probe > 0, "probe timeouts %" PRId64
          ", deaths holding a probe %" PRId64, st.probe_timeouts, all.self_kills_with_probe);

    /* No kills now: every process exits normally, so the slot gains exactly
     * what they did (H8). */
    atomic_store(&shm->stop, 0);
    struct totals final_all = {0}, final_exited = {0};
    for (int w = 0; w < WORKERS; w++)
        pids[w] = start(w, 1);
    wait_all(pids, 60.0, &final_all, &final_exited);
    respite_shared_gate_info after;
    if (read_slot(&after) != 0)
        return 1;
    CHECK(final_all.errors == 0, "%" PRId64 " errors", final_all.errors);
    CHECK(final_exited.checks == WORKERS * THREADS * FINAL_CALLS, "%" PRId64 " checks", final_exited.checks);
    CHECK(after.stats.admitted - st.admitted == final_exited.admitted, "admitted: slot +%" PRId64 ", workers %" PRId64,
          after.stats.admitted - st.admitted, final_exited.admitted);
    CHECK(after.stats.refused - st.refused == final_exited.refused, "refused: slot +%" PRId64 ", workers %" PRId64,
          after.stats.refused - st.refused, final_exited.refused);
    CHECK(after.stats.reported - st.reported == final_exited.reports, "reported: slot +%" PRId64
          ", workers %" PRId64, after.stats.reported - st.reported, final_exited.reports);
    CHECK(after.stats.counted_failures - st.counted_failures <= final_exited.counted_reports,
          "counted: slot +%" PRId64 ", counted reports %" PRId64, after.stats.counted_failures - st.counted_failures,
          final_exited.counted_reports);
    check_probes(&after.stats, &all, 0); /* the records of both phases; deaths were in the first */

    unlink(gate_path);
    rmdir(dir);
    if (failures)
        fprintf(stderr, "%d invariant(s) failed\n", failures);
    return failures ? 1 : 0;
}

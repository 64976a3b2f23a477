/* A gate shared by a fleet of hosts through Redis (docs/spec.md section 11).
 *
 * The store is never on a call's path: calls use the local gate only. One
 * thread per fleet gate, every fleet_refresh_seconds (at once when the
 * local gate opens), reads the local gate's statistics, runs the fleet's
 * script once (fleet_script.c: this host's opening and its probe's outcome
 * in, the fleet's state out) and applies the answer to the local gate
 * through the hooks of gate_fleet.h:
 *   - the fleet paused: hold the local pause until the fleet's ends, plus a
 *     margin, so the local gate never starts probing on its own while the
 *     thread is alive (F5);
 *   - the pause ended and this host took the probe lease: end the local
 *     pause now (G7: the local gate admits its probe), then report how the
 *     probe went (F7, F8); another host took it: stay held, and log
 *     fleet_probing once per pause (F7);
 *   - the fleet recovered through another host's probe: the local gate
 *     recovers (F6).
 * When an exchange fails, the host forgets the fleet (its gate carries on
 * alone, F10) and says so once; the first exchange that works again says
 * so too (F11). Between exchanges the thread also listens for the fleet's
 * change notices (fleet_changes.c, F13): another host's notice starts an
 * exchange at once, so a pause reaches this host in milliseconds rather
 * than at its next refresh. */
#include "fleet_internal.h"

#include "../gate_fleet.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

struct respite_fleet_gate {
    respite_gate *gate;
    fleet_store *store;
    fleet_changes *changes;
    int wake_fd; /* an eventfd: a call changed the local gate, or free stops the thread */
    fleet_rules rules;
    double refresh;
    char host[RESPITE_NAME_MAX];
    pthread_t thread;

    pthread_mutex_t lock; /* guards what follows; never held while calling the gate */
    bool stop;
    respite_fleet_view view;

    /* The thread's own. */
    int64_t trips_seen;      /* the local gate's trips already told to the fleet */
    bool lost;               /* the last exchange failed */
    bool held;               /* the local pause is the fleet's */
    bool released;           /* this host holds the lease and let its gate probe */
    bool probe_out_told;     /* ... and told the fleet that its probe is out */
    int64_t release_generation;
    int64_t release_probes;
    int64_t probing_told;    /* the fleet pause (its epoch) whose end this host logged */
};

/* The margin a held pause runs past the fleet's: a few exchanges, so it
 * ends only by the thread (or, with Redis gone, on its own, F10). */
static double hold_margin(const respite_fleet_gate *f)
{
    return 4.0 * f->refresh;
}

static void wake(respite_fleet_gate *f)
{
    const uint64_t one = 1;
    ssize_t put = write(f->wake_fd, &one, sizeof one); /* fails only when the counter is full: awake anyway */
    (void)put;
}

static void observe(void *data)
{
    wake(data);
}

/* What this host tells the fleet, from its gate's statistics. */
static void make_report(respite_fleet_gate *f, const respite_gate_stats *stats, fleet_report *report)
{
    memset(report, 0, sizeof *report);
    report->outcome = "";
    report->opened = stats->trips > f->trips_seen;
    report->want_probe = f->held && !f->released; /* a lease it let lapse goes to another host */
    if (!f->released)
        return;
    if (stats->state == RESPITE_GATE_CLOSED)
        report->outcome = "success";
    else if (stats->generation != f->release_generation)
        report->outcome = "failure";
    else if (stats->probes > f->release_probes && !f->probe_out_told)
        report->probe_admitted = true;
}

static void lose(respite_fleet_gate *f, double now)
{
    fleet_changes_drop(f->changes); /* made again on rejoining (F13) */
    f->held = false; /* F10: a held pause ends at its end, on this host's gate */
    f->released = false;
    f->probing_told = 0;
    if (!f->lost) {
        f->lost = true;
        respite_gate_fleet_note(f->gate, RESPITE_EVENT_FLEET_STORE_LOST, now, NULL);
    }
}

/* Applies the fleet's answer to the local gate (F5-F8); `before` is the
 * gate as read before the exchange, so a probe admitted and settled right
 * after the release still tells as its outcome. */
static void apply(respite_fleet_gate *f, const fleet_report *report, const fleet_reply *reply,
                  const respite_gate_stats *before)
{
    double now = respite_now();
    if (!reply->paused) {
        if (f->held || f->released)
            respite_gate_fleet_resume(f->gate, now, NULL); /* F6 */
        f->held = f->released = false;
        return;
    }
    if (strcmp(reply->holder, f->host) == 0) {
        if (report->probe_admitted)
            f->probe_out_told = true;
        if (!f->released) {
            f->released = true;
            f->probe_out_told = false;
            f->release_generation = before->generation; /* ending a pause keeps the generation */
            f->release_probes = before->probes;
            respite_gate_fleet_hold(f->gate, now, reply->hosts_opened, f->rules.window, 0.0, now, NULL); /* F7 */
        }
        return;
    }
    f->released = false; /* an outcome told, or the lease lost */
    f->held = true;
    respite_gate_fleet_hold(f->gate, now + reply->pause_left + hold_margin(f), reply->hosts_opened,
                            f->rules.window, reply->pause_left, now, NULL);
    /* F7: the fleet's pause ended and another host probes; this one stays
     * held, and says so once per pause (the holder logs probing). */
    if (reply->pause_left <= 0 && reply->holder[0] && reply->epoch != f->probing_told) {
        f->probing_told = reply->epoch;
        respite_gate_fleet_note(f->gate, RESPITE_EVENT_FLEET_PROBING, now, NULL);
    }
}

static void step(respite_fleet_gate *f)
{
    double now = respite_now();
    respite_gate_get_state(f->gate, now, NULL); /* applies G10 before reading */
    respite_gate_stats stats;
    respite_gate_stats_get(f->gate, &stats, NULL);
    fleet_report report;
    make_report(f, &stats, &report);
    fleet_reply reply;
    memset(&reply, 0, sizeof reply);
    bool ok = fleet_store_exchange(f->store, f->host, &report, &f->rules, &reply) == 0;
    if (!ok) {
        lose(f, respite_now());
    } else {
        f->trips_seen = stats.trips;
        if (f->lost) {
            f->lost = false;
            respite_gate_fleet_note(f->gate, RESPITE_EVENT_FLEET_REJOINED, respite_now(), NULL);
        }
        apply(f, &report, &reply, &stats);
    }
    pthread_mutex_lock(&f->lock);
    f->view.connected = ok;
    if (ok) {
        f->view.exchanges++;
        f->view.paused = reply.paused;
        f->view.pause_left = reply.pause_left;
        f->view.hosts_opened = reply.hosts_opened;
        f->view.holds_probe = strcmp(reply.holder, f->host) == 0;
        memcpy(f->view.probe_host, reply.holder, sizeof f->view.probe_host);
        f->view.epoch = reply.epoch;
    } else {
        f->view.failed_exchanges++;
    }
    pthread_mutex_unlock(&f->lock);
}

static bool stopping(respite_fleet_gate *f)
{
    pthread_mutex_lock(&f->lock);
    bool stop = f->stop;
    pthread_mutex_unlock(&f->lock);
    return stop;
}

/* Until the next refresh, a wake-up, or another host's change notice (F13). */
static void wait_for_news(respite_fleet_gate *f)
{
    double until = respite_now() + f->refresh;
    for (;;) {
        double left = until - respite_now();
        if (left <= 0)
            return;
        struct pollfd fds[2] = {{.fd = f->wake_fd, .events = POLLIN}, {.fd = fleet_changes_fd(f->changes), .events = POLLIN}};
        int n = poll(fds, fds[1].fd >= 0 ? 2 : 1, (int)ceil(left * 1000.0));
        if (n < 0 && errno != EINTR)
            return; /* cannot wait: exchange now rather than never */
        if (n <= 0)
            continue;
        if (fds[0].revents) {
            uint64_t count;
            ssize_t got = read(f->wake_fd, &count, sizeof count); /* clears it (EAGAIN: nothing to clear) */
            (void)got;
            return;
        }
        /* a notice from another host, or the subscription lost (the store may be gone: F10 at once) */
        if (fds[1].revents && fleet_changes_read(f->changes, f->host) != 0)
            return;
    }
}

static void *run(void *data)
{
    respite_fleet_gate *f = data;
    while (!stopping(f)) {
        step(f);
        if (!f->lost && !stopping(f)) /* free waits for one exchange, not a subscribe too */
            fleet_changes_subscribe(f->changes, respite_now());
        wait_for_news(f);
    }
    return NULL;
}

/* ---------------------------------------------------------------- life */

/* F1: what a fleet gate needs of its gate settings. */
static int check_gate_settings(const respite_settings *gate, respite_error *err)
{
    if (!respite_setting_text(gate, RESPITE_SETTING_GATE_NAME)[0])
        return respite_fail_setting(err, "name", "name must not be empty for a fleet gate: it names the gate's keys "
                                                 "in Redis");
    if (respite_setting_flag(gate, RESPITE_SETTING_GATE_RECOVER_NEVER))
        return respite_fail_setting(err, "recover_never",
                                    "recover_never must be false for a fleet gate: a fleet pause always ends");
    if (!(respite_setting_number(gate, RESPITE_SETTING_GATE_RECOVERY_SECONDS) > 0.0))
        return respite_fail_setting(err, "recovery_seconds",
                                    "recovery_seconds must be more than 0 for a fleet gate (got %g)",
                                    respite_setting_number(gate, RESPITE_SETTING_GATE_RECOVERY_SECONDS));
    if (respite_setting_integer(gate, RESPITE_SETTING_GATE_PROBES) < 1)
        return respite_fail_setting(err, "probes", "probes must be 1 or more for a fleet gate: the fleet's pause "
                                                   "ends by one host's probe (got 0)");
    return RESPITE_OK;
}

/* F2: fleet_host_id, or the host's name. */
static int host_id(const respite_settings *fleet, char *out, size_t size, respite_error *err)
{
    const char *id = respite_setting_text(fleet, RESPITE_SETTING_FLEET_HOST_ID);
    char name[256] = "";
    if (!id[0]) {
        if (gethostname(name, sizeof name - 1) != 0 || !name[0])
            return respite_fail_setting(err, "fleet_host_id",
                                        "fleet_host_id is empty and the host's name cannot be read: set it");
        id = name;
    }
    if (strlen(id) >= size)
        return respite_fail_setting(err, "fleet_host_id", "fleet_host_id must be at most %zu bytes (got %zu: '%s')",
                                    size - 1, strlen(id), id);
    memcpy(out, id, strlen(id) + 1);
    return RESPITE_OK;
}

respite_fleet_gate *respite_fleet_gate_new(const respite_settings *gate_settings,
                                           const respite_settings *fleet_settings, respite_error *err)
{
    if (!gate_settings || !fleet_settings) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "a fleet gate needs gate settings and fleet settings (got %s)",
                     gate_settings ? "no fleet settings" : "no gate settings");
        return NULL;
    }
    fleet_endpoint endpoint;
    char host[RESPITE_NAME_MAX];
    if (respite_settings_expect(gate_settings, "gate", "gate_settings", err) != RESPITE_OK ||
        respite_settings_expect(fleet_settings, "fleet", "fleet_settings", err) != RESPITE_OK ||
        check_gate_settings(gate_settings, err) != RESPITE_OK ||
        fleet_url_parse(respite_setting_text(fleet_settings, RESPITE_SETTING_FLEET_URL), &endpoint, err) !=
            RESPITE_OK ||
        host_id(fleet_settings, host, sizeof host, err) != RESPITE_OK)
        return NULL;
    respite_fleet_gate *f = calloc(1, sizeof *f);
    if (!f) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a fleet gate");
        return NULL;
    }
    f->refresh = respite_setting_number(fleet_settings, RESPITE_SETTING_FLEET_REFRESH_SECONDS);
    memcpy(f->host, host, sizeof host);
    memcpy(f->view.host_id, host, sizeof host);
    double probe_timeout = respite_setting_number(gate_settings, RESPITE_SETTING_GATE_PROBE_TIMEOUT_SECONDS);
    f->rules.window = respite_setting_number(gate_settings, RESPITE_SETTING_GATE_FAILURES_WINDOW_SECONDS);
    f->rules.quorum = (int)respite_setting_integer(fleet_settings, RESPITE_SETTING_FLEET_QUORUM);
    f->rules.recovery = respite_setting_number(gate_settings, RESPITE_SETTING_GATE_RECOVERY_SECONDS);
    f->rules.multiplier = respite_setting_number(gate_settings, RESPITE_SETTING_GATE_RECOVERY_MULTIPLIER);
    f->rules.max_recovery = respite_setting_number(gate_settings, RESPITE_SETTING_GATE_MAX_RECOVERY_SECONDS);
    f->rules.short_lease = 5.0 * f->refresh;
    f->rules.probe_lease = probe_timeout + 5.0 * f->refresh;
    double longest = f->rules.max_recovery > f->rules.recovery ? f->rules.max_recovery : f->rules.recovery;
    f->rules.keep = 2.0 * (longest + f->rules.window + f->rules.probe_lease);
    pthread_mutex_init(&f->lock, NULL);
    f->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    f->gate = f->wake_fd >= 0 ? respite_gate_new(gate_settings, err) : NULL;
    if (f->wake_fd < 0)
        respite_fail(err, RESPITE_E_INTERNAL, "cannot make the fleet gate's eventfd: %s", strerror(errno));
    f->store = f->gate ? fleet_store_new(&endpoint, respite_gate_name(f->gate), f->refresh) : NULL;
    f->changes = f->store ? fleet_changes_new(&endpoint, respite_gate_name(f->gate), f->refresh) : NULL;
    if (f->gate && !f->changes)
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a fleet gate");
    if (f->changes) {
        respite_gate_set_observer(f->gate, observe, f);
        int rc = pthread_create(&f->thread, NULL, run, f);
        if (rc == 0)
            return f;
        respite_gate_set_observer(f->gate, NULL, NULL);
        respite_fail(err, RESPITE_E_INTERNAL, "cannot start the fleet gate's thread: %s", strerror(rc));
    }
    fleet_changes_free(f->changes);
    fleet_store_free(f->store);
    respite_gate_free(f->gate);
    if (f->wake_fd >= 0)
        close(f->wake_fd);
    pthread_mutex_destroy(&f->lock);
    free(f);
    return NULL;
}

void respite_fleet_gate_free(respite_fleet_gate *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    f->stop = true;
    pthread_mutex_unlock(&f->lock);
    wake(f);
    pthread_join(f->thread, NULL);
    respite_gate_set_observer(f->gate, NULL, NULL);
    fleet_changes_free(f->changes);
    fleet_store_free(f->store);
    respite_gate_free(f->gate);
    close(f->wake_fd);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

respite_gate *respite_fleet_gate_gate(respite_fleet_gate *f)
{
    return f ? f->gate : NULL;
}

int respite_fleet_gate_view(respite_fleet_gate *f, respite_fleet_view *out, respite_error *err)
{
    if (!f)
        return respite_closed(RESPITE_HANDLE_FLEET_GATE, err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_fleet_view (got NULL)");
    pthread_mutex_lock(&f->lock);
    *out = f->view;
    pthread_mutex_unlock(&f->lock);
    return RESPITE_OK;
}

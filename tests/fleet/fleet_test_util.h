/* Helpers of the fleet tests: a redis-server of their own on 127.0.0.1, a
 * listener that accepts and never answers, and hosts as forked processes
 * that run commands from the test through shared memory. */
#ifndef RESPITE_FLEET_TEST_UTIL_H
#define RESPITE_FLEET_TEST_UTIL_H

#include "../support/test_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------- servers */

/* A port nothing listens on now. */
static inline int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        fail_msg("no free port");
    close(fd);
    return ntohs(a.sin_port);
}

/* 1 when something accepts a connection on the port. */
static inline int port_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

/* Starts redis-server on 127.0.0.1:port (no persistence, in a temp dir)
 * with `extra` arguments (NULL-terminated; NULL for none) and waits until
 * it accepts connections; returns its pid. */
static inline pid_t redis_start_with(int port, const char *const *extra)
{
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        const char *args[32] = {RESPITE_REDIS_SERVER, "--port", port_text, "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", "/tmp", "--enable-debug-command", "local",
                                "--daemonize", "no"};
        int n = 15;
        for (; extra && *extra && n < 31; extra++)
            args[n++] = *extra;
        execv(RESPITE_REDIS_SERVER, (char *const *)args);
        _exit(127);
    }
    double until = respite_now() + 10.0;
    while (!port_open(port)) {
        if (respite_now() > until)
            fail_msg("redis-server did not start on port %d", port);
        sleep_for(0.01);
    }
    return pid;
}

static inline pid_t redis_start(int port)
{
    return redis_start_with(port, NULL);
}

static inline void process_kill(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* A process that listens on the port and never accepts nor answers: the
 * kernel completes connections, nothing ever replies. */
static inline pid_t silent_listener_start(int port)
{
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0)
            _exit(1);
        for (;;)
            pause();
    }
    double until = respite_now() + 5.0;
    while (!port_open(port) && respite_now() < until)
        sleep_for(0.01);
    return pid;
}

/* --------------------------------------------------------------- hosts */

#define HOSTS_MAX 4
#define PROBES_MAX 512
#define LATENCY_BUCKETS 64 /* bucket k: latencies in [2^k, 2^(k+1)) ns */

enum host_command {
    HOST_IDLE,
    HOST_FAIL,          /* arg calls that each fail (server_error), while admitted */
    HOST_ADMIT,         /* one call: result 1 admitted (reported success), 0 refused */
    HOST_UNTIL_REFUSED, /* succeeding calls every 1 ms until one is refused: result its time, -1 after arg s */
    HOST_UNTIL_ADMITTED,/* calls every 1 ms until one is admitted (reported success): its time, -1 after arg s */
    HOST_OUTAGE,        /* a down service until `service_up`: each probe takes 50 ms and is recorded */
    HOST_LATENCY,       /* succeeding calls, each timed, until `stop` */
    HOST_EXIT
};

typedef struct host_slot {
    _Atomic int command; /* the test writes it; the host sets it back to HOST_IDLE when done */
    double arg;
    double result;
    _Atomic int events[RESPITE_EVENT_TYPE_COUNT]; /* events its gate logged, by type */
    respite_fleet_view view;                       /* updated as it runs */
    respite_gate_stats stats;                      /* its gate's, updated as it runs */
    _Atomic long latency[LATENCY_BUCKETS];
    _Atomic long calls;
} host_slot;

typedef struct fleet_area {
    host_slot host[HOSTS_MAX];
    _Atomic int stop;
    _Atomic int service_up;
    _Atomic int probes;
    _Atomic int die_on_probe; /* the next host to be admitted a probe dies at once (SIGKILL) */
    double probe_at[PROBES_MAX];
    int probe_host[PROBES_MAX];
} fleet_area;

static fleet_area *area;
static pid_t host_pid[HOSTS_MAX];

static inline void host_events(int i, respite_gate *gate, respite_fleet_gate *fleet)
{
    respite_event ev;
    while (respite_gate_events_pending(gate) > 0 && respite_gate_next_event(gate, &ev, NULL) == 1)
        if (ev.type >= 0 && ev.type < RESPITE_EVENT_TYPE_COUNT)
            atomic_fetch_add(&area->host[i].events[ev.type], 1);
    respite_fleet_gate_view(fleet, &area->host[i].view, NULL);
    respite_gate_stats_get(gate, &area->host[i].stats, NULL);
}

static inline void host_latency(host_slot *h, double seconds)
{
    double ns = seconds * 1e9;
    int k = ns < 1.0 ? 0 : (int)log2(ns);
    atomic_fetch_add(&h->latency[k < LATENCY_BUCKETS ? k : LATENCY_BUCKETS - 1], 1);
}

/* One call through the gate; the outcome is reported at once. 1 admitted. */
static inline int host_call(respite_gate *gate, int outcome, int *probe)
{
    respite_decision d;
    respite_gate_check(gate, respite_now(), &d, NULL);
    if (probe)
        *probe = d.probe;
    if (d.allowed)
        respite_gate_report(gate, d.permit, outcome, 0.0, respite_now(), NULL);
    return d.allowed;
}

static inline void host_run(int i, respite_fleet_gate *fleet)
{
    respite_gate *gate = respite_fleet_gate_gate(fleet);
    host_slot *h = &area->host[i];
    for (;;) {
        int command = atomic_load(&h->command);
        host_events(i, gate, fleet);
        if (command == HOST_IDLE) {
            sleep_for(0.001);
            continue;
        }
        double until = respite_now() + h->arg;
        h->result = -1;
        switch (command) {
        case HOST_FAIL:
            for (int k = 0; k < (int)h->arg; k++)
                host_call(gate, RESPITE_OUTCOME_SERVER_ERROR, NULL);
            break;
        case HOST_ADMIT:
            h->result = host_call(gate, RESPITE_OUTCOME_SUCCESS, NULL);
            break;
        case HOST_UNTIL_REFUSED:
        case HOST_UNTIL_ADMITTED:
            while (respite_now() < until) {
                int admitted = host_call(gate, RESPITE_OUTCOME_SUCCESS, NULL);
                if (admitted == (command == HOST_UNTIL_ADMITTED)) {
                    h->result = respite_now();
                    break;
                }
                sleep_for(0.001);
            }
            break;
        case HOST_OUTAGE:
            while (!atomic_load(&area->stop)) {
                respite_decision d;
                respite_gate_check(gate, respite_now(), &d, NULL);
                if (d.allowed && d.probe) {
                    int k = atomic_fetch_add(&area->probes, 1);
                    if (k < PROBES_MAX) {
                        area->probe_at[k] = respite_now();
                        area->probe_host[k] = i;
                    }
                    if (atomic_exchange(&area->die_on_probe, 0))
                        kill(getpid(), SIGKILL);
                    sleep_for(0.05); /* the probe's call takes a while */
                }
                if (d.allowed)
                    respite_gate_report(gate, d.permit,
                                        atomic_load(&area->service_up) ? RESPITE_OUTCOME_SUCCESS
                                                                       : RESPITE_OUTCOME_SERVER_ERROR,
                                        0.0, respite_now(), NULL);
                host_events(i, gate, fleet);
                sleep_for(0.001);
            }
            break;
        case HOST_LATENCY:
            while (!atomic_load(&area->stop)) {
                for (int k = 0; k < 100; k++) {
                    double start = respite_now();
                    int64_t permit = respite_gate_admit_now(gate, NULL);
                    if (permit > 0)
                        respite_gate_report_now(gate, permit, RESPITE_OUTCOME_SUCCESS, 0.0, NULL);
                    host_latency(h, respite_now() - start);
                    atomic_fetch_add(&h->calls, 1);
                }
                host_events(i, gate, fleet);
                sleep_for(0.0005);
            }
            break;
        case HOST_EXIT:
            respite_fleet_gate_free(fleet);
            _exit(0);
        }
        host_events(i, gate, fleet);
        atomic_store(&h->command, HOST_IDLE);
    }
}

/* Starts `count` hosts "host-0".. each with a fleet gate from these gate and
 * fleet settings (name=value pairs) on fleet_url. */
static inline void hosts_start(int count, const char *gate_pairs, const char *fleet_pairs, int port)
{
    area = mmap(NULL, sizeof *area, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(area != MAP_FAILED);
    memset(area, 0, sizeof *area);
    for (int i = 0; i < count; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test never leaves hosts behind */
            char pairs[512];
            snprintf(pairs, sizeof pairs, "%s,fleet_host_id=host-%d,fleet_url=redis://127.0.0.1:%d", fleet_pairs, i,
                     port);
            respite_settings *g = settings_of("gate", gate_pairs);
            respite_settings *f = settings_of("fleet", pairs);
            respite_error err;
            respite_error_clear(&err);
            respite_fleet_gate *fleet = respite_fleet_gate_new(g, f, &err);
            respite_settings_free(g);
            respite_settings_free(f);
            if (!fleet) {
                fprintf(stderr, "host %d: %s\n", i, err.message);
                _exit(1);
            }
            host_run(i, fleet);
        }
        host_pid[i] = pid;
    }
}

/* Asks host i to run a command; waits for it when `wait` > 0 (at most that
 * long). Returns the result. */
static inline double host_do(int i, int command, double arg, double wait)
{
    area->host[i].arg = arg;
    atomic_store(&area->host[i].command, command);
    if (wait <= 0)
        return 0;
    double until = respite_now() + wait;
    while (atomic_load(&area->host[i].command) != HOST_IDLE) {
        if (respite_now() > until)
            fail_msg("host %d did not finish command %d within %gs", i, command, wait);
        sleep_for(0.001);
    }
    return area->host[i].result;
}

static inline void host_wait(int i, double wait)
{
    double until = respite_now() + wait;
    while (atomic_load(&area->host[i].command) != HOST_IDLE) {
        if (respite_now() > until)
            fail_msg("host %d did not finish within %gs", i, wait);
        sleep_for(0.001);
    }
}

static inline void hosts_stop(int count)
{
    for (int i = 0; i < count; i++) {
        host_do(i, HOST_EXIT, 0, 0);
        double until = respite_now() + 5.0;
        int status = 0;
        while (waitpid(host_pid[i], &status, WNOHANG) == 0 && respite_now() < until)
            sleep_for(0.005);
        if (respite_now() >= until)
            process_kill(host_pid[i]);
        host_pid[i] = 0;
    }
    munmap(area, sizeof *area);
    area = NULL;
}

/* After a failed test: the hosts still running are killed. */
static inline void hosts_kill(void)
{
    for (int i = 0; i < HOSTS_MAX; i++)
        if (host_pid[i] > 0)
            process_kill(host_pid[i]);
    memset(host_pid, 0, sizeof host_pid);
    if (area)
        munmap(area, sizeof *area);
    area = NULL;
}

/* Waits (at most `wait` seconds) until cond holds; 1 if it did. */
#define WAIT_FOR(cond, wait)                                  \
    ({                                                        \
        double until_ = respite_now() + (wait);               \
        int ok_ = 0;                                          \
        while (!(ok_ = (cond)) && respite_now() < until_)     \
            sleep_for(0.002);                                 \
        ok_;                                                  \
    })

/* The latency below which `share` of host i's calls took, in seconds. */
static inline double host_latency_quantile(int i, double share)
{
    long total = 0, seen = 0;
    for (int k = 0; k < LATENCY_BUCKETS; k++)
        total += atomic_load(&area->host[i].latency[k]);
    for (int k = 0; k < LATENCY_BUCKETS; k++) {
        seen += atomic_load(&area->host[i].latency[k]);
        if (seen >= share * (double)total)
            return ldexp(1.0, k + 1) / 1e9;
    }
    return INFINITY;
}

static inline double host_latency_max(int i)
{
    for (int k = LATENCY_BUCKETS - 1; k >= 0; k--)
        if (atomic_load(&area->host[i].latency[k]))
            return ldexp(1.0, k + 1) / 1e9;
    return 0;
}

static inline void host_latency_clear(int i)
{
    for (int k = 0; k < LATENCY_BUCKETS; k++)
        atomic_store(&area->host[i].latency[k], 0);
}

#endif

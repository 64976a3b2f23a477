/* The closed-path cost of a fleet gate next to the local gate's, in one run
 * (docs/spec.md F3: the store is never on a call's path).
 *
 *   bench_fleet_gate [milliseconds per round, default 200] [rounds, default 11]
 *
 * It starts its own redis-server (from PATH) on a free port of 127.0.0.1 so
 * the fleet gate's thread exchanges with a live store meanwhile. Rounds are
 * paired (local first in even rounds, fleet first in odd ones); each figure
 * is the median of its rounds (the thread's own CPU time) and the ratio the
 * median of the per-round ratios. Target: 1.2x or less. The line starting
 * with "result" is the summary scripts/bench.sh tabulates. */
#include "bench_stats.h"
#include "respite.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS_MAX 101

static double thread_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Nanoseconds per admit + success report on the closed path, run for
 * about `seconds` of this thread's CPU time. */
static double closed_path_ns(respite_gate *gate, double seconds)
{
    int64_t calls = 0, sum = 0;
    double start = thread_seconds(), elapsed;
    do {
        for (int i = 0; i < 100000; i++) {
            int64_t permit = respite_gate_admit_now(gate, NULL);
            respite_gate_report_now(gate, permit, RESPITE_OUTCOME_SUCCESS, 0.0, NULL);
            sum += permit;
        }
        calls += 100000;
        elapsed = thread_seconds() - start;
    } while (elapsed < seconds);
    if (sum == 0)
        fprintf(stderr, "the gate refused\n");
    return elapsed / (double)calls * 1e9;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static pid_t redis_start(int port)
{
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        execlp("redis-server", "redis-server", "--port", port_text, "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--dir", "/tmp", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static respite_settings *settings(const char *component, const char *const pairs[][2], int n)
{
    respite_settings *s = respite_settings_new(component, NULL);
    for (int i = 0; i < n; i++) {
        respite_error err;
        if (respite_settings_set_text(s, pairs[i][0], pairs[i][1], &err) != RESPITE_OK) {
            fprintf(stderr, "%s\n", err.message);
            exit(2);
        }
    }
    return s;
}

int main(int argc, char **argv)
{
    double seconds = (argc > 1 ? atof(argv[1]) : 200.0) / 1000.0;
    int rounds = argc > 2 ? atoi(argv[2]) : 11;
    if (seconds <= 0 || rounds < 1 || rounds > ROUNDS_MAX) {
        fprintf(stderr, "usage: bench_fleet_gate [milliseconds per round] [rounds, 1 to %d]\n", ROUNDS_MAX);
        return 2;
    }
    int port = free_port();
    pid_t redis = redis_start(port);
    char url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", port);
    const char *const gate_pairs[][2] = {{"name", "bench"}};
    const char *const fleet_pairs[][2] = {{"fleet_url", url}, {"fleet_host_id", "bench-host"}};
    respite_settings *g = settings("gate", gate_pairs, 1);
    respite_settings *f = settings("fleet", fleet_pairs, 2);
    respite_error err;
    respite_gate *local = respite_gate_new(g, &err);
    respite_fleet_gate *fleet = respite_fleet_gate_new(g, f, &err);
    if (!local || !fleet) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    struct timespec pause = {0, 300000000};
    nanosleep(&pause, NULL); /* the thread connects */
    double local_ns[ROUNDS_MAX], fleet_ns[ROUNDS_MAX], ratio[ROUNDS_MAX];
    for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0)
            local_ns[r] = closed_path_ns(local, seconds);
        fleet_ns[r] = closed_path_ns(respite_fleet_gate_gate(fleet), seconds);
        if (r % 2 == 1)
            local_ns[r] = closed_path_ns(local, seconds);
        ratio[r] = fleet_ns[r] / local_ns[r];
    }
    respite_fleet_view view;
    respite_fleet_gate_view(fleet, &view, NULL);
    double load[1] = {0};
    getloadavg(load, 1);
    double local_mid = bench_median(local_ns, rounds), fleet_mid = bench_median(fleet_ns, rounds);
    double mid = bench_median(ratio, rounds); /* sorts */
    printf("closed path (admit_now + report_now success), %d paired rounds of %.0f ms (order alternating)\n", rounds,
           seconds * 1e3);
    printf("  local gate   %6.2f ns\n", local_mid);
    printf("  fleet gate   %6.2f ns   (its thread: %lld exchanges with Redis meanwhile, %s)\n", fleet_mid,
           (long long)view.exchanges, view.connected ? "connected" : "NOT connected");
    printf("  fleet/local per round: min %.2f, median %.2f, max %.2f (load average %.2f)\n", ratio[0], mid,
           ratio[rounds - 1], load[0]);
    printf("result\tC: fleet gate closed path <= 1.2x the local gate's\t%.2f ns vs %.2f ns: %.2fx median "
           "(min %.2f, max %.2f) of %d paired rounds\t%s\n",
           fleet_mid, local_mid, mid, ratio[0], ratio[rounds - 1], rounds,
           mid <= 1.2 && view.connected ? "met" : "NOT met");
    respite_fleet_gate_free(fleet);
    respite_gate_free(local);
    respite_settings_free(g);
    respite_settings_free(f);
    kill(redis, SIGKILL);
    waitpid(redis, NULL, 0);
    return 0;
}

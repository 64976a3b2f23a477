/* Sender throughput: events per second the background sender delivers to
 * the local fault server, next to a curl-multi loop that posts the same
 * batches with the sender's options (NOSIGNAL, one kept-alive connection,
 * the same headers, user agent, timeout, progress callback and bodies).
 * The kinds take turns in every round, the order rotating; the figures are
 * the median (min, max) of the per-round ratios to the loop.
 * "queued first" times delivery alone: every event is queued before the
 * clock starts, as the loop has its events in memory; "enqueue + send" has
 * the producer enqueueing on the same cores while the sender sends. The CPU
 * time per batch (all threads: client, sender thread and server) is
 * steadier than the rates on a loaded machine.
 * Target: the sender (queued first) at 95 % of the loop or better.
 *
 *   bench_sender [events] [batch] [rounds] [sender|plain]
 *
 * Lines starting with "result" are the summary scripts/bench.sh tabulates. */
#include "bench_stats.h"
#include <curl/curl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault_server.h"
#include "respite.h"

/* CPU seconds of the whole process (client, sender thread and server):
 * unlike wall time, not inflated by waiting for a busy machine's cores. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char **make_events(int n)
{
    char **events = malloc((size_t)n * sizeof *events);
    for (int i = 0; i < n; i++) {
        events[i] = malloc(128);
        snprintf(events[i], 128, "{\"id\":%08d,\"ua\":\"Mozilla/5.0 (X11; Linux x86_64)\",\"ip\":\"192.0.2.%d\"}", i,
                 i % 250);
    }
    return events;
}

static size_t ignore_body(char *data, size_t size, size_t count, void *user)
{
    (void)data;
    (void)user;
    return size * count;
}

/* The sender asks libcurl for progress calls (to abandon a send when it is
 * closed) and reads an atomic there: the loop does the same. */
static _Atomic long long abort_at;

static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)user;
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    return atomic_load(&abort_at) > 0;
}

#define TIMEOUT_SECONDS 30

/* The baseline: build each batch as the sender does and POST it through a
 * curl multi handle, as the sender does, with the sender's options set once. */
static double run_plain(const char *url, char **events, int n, int batch, double *cpu)
{
    CURL *easy = curl_easy_init();
    CURLM *multi = curl_multi_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, TIMEOUT_SECONDS * 1000L);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, ignore_body);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, ignore_body);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "respite");
    curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
    size_t cap = (size_t)batch * 128 + 16;
    char *body = malloc(cap);
    double start = respite_now(), cpu_start = cpu_now();
    for (int i = 0; i < n; i += batch) {
        size_t len = 0;
        body[len++] = '[';
        for (int j = i; j < i + batch && j < n; j++) {
            if (j > i)
                body[len++] = ',';
            size_t k = strlen(events[j]);
            memcpy(body + len, events[j], k);
            len += k;
        }
        body[len++] = ']';
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
        CURLcode result = CURLE_FAILED_INIT;
        int running = 1;
        curl_multi_add_handle(multi, easy);
        while (running) {
            if (curl_multi_perform(multi, &running) != CURLM_OK)
                break;
            if (running)
                curl_multi_poll(multi, NULL, 0, 1000, NULL);
        }
        int left;
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(multi, &left)))
            if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy)
                result = msg->data.result;
        curl_multi_remove_handle(multi, easy);
        long status = 0;
        if (result != CURLE_OK || curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) || status != 200) {
            fprintf(stderr, "plain loop: a post failed\n");
            exit(1);
        }
    }
    double took = respite_now() - start;
    *cpu = cpu_now() - cpu_start;
    free(body);
    curl_slist_free_all(headers);
    curl_multi_cleanup(multi);
    curl_easy_cleanup(easy);
    return took;
}

/* The sender. queued_first 0: time enqueueing every event (the producer)
 * and the flush that ends the run. queued_first 1: every event is queued
 * before the clock starts (min_entries_per_message = n holds them back),
 * then flush is timed: delivery alone, as the plain loop does it. */
static double run_sender(const char *url, char **events, int n, int batch, int queued_first, double *cpu)
{
    respite_error err;
    respite_error_clear(&err);
    char text[64];
    respite_settings *ss = respite_settings_new("sender", &err);
    respite_settings_set_text(ss, "url", url, &err);
    respite_settings_set_text(ss, "prefix", "[", &err);
    respite_settings_set_text(ss, "separator", ",", &err);
    respite_settings_set_text(ss, "suffix", "]", &err);
    respite_settings_set_number(ss, "timeout_seconds", TIMEOUT_SECONDS, &err);
    snprintf(text, sizeof text, "%d", queued_first ? n : batch);
    respite_settings_set_text(ss, "min_entries_per_message", text, &err);
    snprintf(text, sizeof text, "%d", batch);
    respite_settings_set_text(ss, "max_entries_per_message", text, &err);
    respite_policy *policy = respite_policy_from_json(
        "{\"name\":\"bench\",\"maximum_capacity\":1000000,\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":"
        "\"discard\"}]}",
        NULL, &err);
    respite_sender *sender = respite_sender_new(ss, NULL, NULL, policy, &err);
    if (!sender) {
        fprintf(stderr, "sender: %s\n", err.message);
        exit(1);
    }
    double start = respite_now(), cpu_start = cpu_now();
    for (int i = 0; i < n; i++) {
        if (queued_first && i == n - 1) { /* the last event releases the rest */
            start = respite_now();
            cpu_start = cpu_now();
        }
        if (respite_sender_enqueue(sender, events[i], strlen(events[i]), &err) != RESPITE_OK) {
            fprintf(stderr, "enqueue: %s\n", err.message);
            exit(1);
        }
    }
    if (respite_sender_flush(sender, 120.0, &err) != RESPITE_OK) {
        fprintf(stderr, "flush: %s\n", err.message);
        exit(1);
    }
    double took = respite_now() - start;
    *cpu = cpu_now() - cpu_start;
    respite_sender_stats st;
    respite_sender_stats_get(sender, &st, &err);
    if (st.queue.delivered != n) {
        fprintf(stderr, "sender delivered %lld of %d\n", (long long)st.queue.delivered, n);
        exit(1);
    }
    respite_sender_free(sender);
    respite_policy_free(policy);
    respite_settings_free(ss);
    return took;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    int batch = argc > 2 ? atoi(argv[2]) : 100;
    int rounds = argc > 3 ? atoi(argv[3]) : 9;
    /* "sender" or "plain": one kind only, for profiling. */
    int only_sender = argc > 4 && strcmp(argv[4], "sender") == 0;
    int only_plain = argc > 4 && strcmp(argv[4], "plain") == 0;
    if (n < 1 || batch < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_sender [events] [batch] [rounds]\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_ALL);
    char error[256];
    respite_fault_server *server = respite_fault_server_start(0, error, sizeof error);
    if (!server) {
        fprintf(stderr, "fault server: %s\n", error);
        return 1;
    }
    respite_fault_server_set_keep_bodies(server, 0);
    const char *url = respite_fault_server_url(server);
    char **events = make_events(n);
    printf("%d events of about 75 bytes, batches of %d, %s; the kinds take turns, order rotating\n", n, batch, url);
    printf("%-8s %18s %24s %26s\n", "events/s", "curl-multi loop", "sender (queued first)", "sender (enqueue + send)");
    enum { PLAIN, QUEUED, ENQUEUE, KINDS };
    double *ratio[KINDS], *cpu_batch[KINDS];
    double *cpu_ratio = calloc((size_t)rounds, sizeof(double)); /* queued first / loop, CPU per batch */
    for (int k = 0; k < KINDS; k++) {
        ratio[k] = calloc((size_t)rounds, sizeof(double));
        cpu_batch[k] = calloc((size_t)rounds, sizeof(double));
    }
    double per_batch = 1e6 * batch / n;
    for (int r = 0; r < rounds; r++) {
        /* a kind left out (sender, plain) counts as 1 event/s and 0 CPU */
        double rate[KINDS] = {1, 1, 1}, cpu[KINDS] = {0, 0, 0};
        for (int i = 0; i < KINDS; i++) {
            int k = (r + i) % KINDS;
            if (k == PLAIN && !only_sender)
                rate[k] = n / run_plain(url, events, n, batch, &cpu[k]);
            else if (k == QUEUED && !only_plain)
                rate[k] = n / run_sender(url, events, n, batch, 1, &cpu[k]);
            else if (k == ENQUEUE && !only_plain && !only_sender)
                rate[k] = n / run_sender(url, events, n, batch, 0, &cpu[k]);
        }
        for (int k = 0; k < KINDS; k++) {
            ratio[k][r] = rate[k] / rate[PLAIN];
            cpu_batch[k][r] = cpu[k] * per_batch;
        }
        cpu_ratio[r] = cpu[PLAIN] > 0 ? cpu[QUEUED] / cpu[PLAIN] : 0;
        printf("round %-2d %18.0f %16.0f (%5.1f%%) %18.0f (%5.1f%%)\n", r + 1, rate[PLAIN], rate[QUEUED],
               100.0 * ratio[QUEUED][r], rate[ENQUEUE], 100.0 * ratio[ENQUEUE][r]);
    }
    double mid[KINDS], cpu_mid[KINDS];
    for (int k = 0; k < KINDS; k++) {
        mid[k] = bench_median(ratio[k], rounds); /* sorts: [0] is the min, [rounds-1] the max */
        cpu_mid[k] = bench_median(cpu_batch[k], rounds);
    }
    printf("per-round ratio to the loop: queued first min %.1f%%, median %.1f%%, max %.1f%%; "
           "enqueue + send min %.1f%%, median %.1f%%, max %.1f%%\n",
           100 * ratio[QUEUED][0], 100 * mid[QUEUED], 100 * ratio[QUEUED][rounds - 1], 100 * ratio[ENQUEUE][0],
           100 * mid[ENQUEUE], 100 * ratio[ENQUEUE][rounds - 1]);
    printf("CPU us/batch (all threads, median) %7.1f %16.1f %27.1f\n", cpu_mid[PLAIN], cpu_mid[QUEUED],
           cpu_mid[ENQUEUE]);
    double cpu_ratio_mid = bench_median(cpu_ratio, rounds);
    printf("CPU per batch, queued first / loop, per round: min %.2f, median %.2f, max %.2f\n", cpu_ratio[0],
           cpu_ratio_mid, cpu_ratio[rounds - 1]);
    printf("result\tsender >= 95%% of a curl-multi loop with its options\tmedian of %d per-round ratios %.1f%% "
           "(min %.1f%%, max %.1f%%); with the producer enqueueing in the same run %.1f%%; CPU per batch %.2fx "
           "the loop's\t%s\n",
           rounds, 100 * mid[QUEUED], 100 * ratio[QUEUED][0], 100 * ratio[QUEUED][rounds - 1], 100 * mid[ENQUEUE],
           cpu_ratio_mid, mid[QUEUED] >= 0.95 ? "met" : "NOT met");
    free(cpu_ratio);
    for (int k = 0; k < KINDS; k++) {
        free(ratio[k]);
        free(cpu_batch[k]);
    }
    int64_t expected = (int64_t)rounds * (only_sender || only_plain ? 1 : 3) * ((n + batch - 1) / batch);
    if (respite_fault_server_requests(server) != expected)
        fprintf(stderr, "warning: the server saw %lld requests, expected %lld\n",
                (long long)respite_fault_server_requests(server), (long long)expected);
    for (int i = 0; i < n; i++)
        free(events[i]);
    free(events);
    respite_fault_server_stop(server);
    curl_global_cleanup();
    return 0;
}

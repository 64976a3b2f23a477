/* Sender throughput: events per second the background sender delivers to
 * the local fault server, next to a plain libcurl loop that posts the same
 * batches (same framing, same batch size, same server, one connection).
 * Target: the sender at 95 % of the plain loop or better.
 * Usage: bench_sender [events] [batch] [rounds] [sender|plain]. Figures: docs/benchmarks.md. */
#include <curl/curl.h>
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

/* The baseline: build each batch as the sender does and POST it. */
static double run_plain(const char *url, char **events, int n, int batch, double *cpu)
{
    CURL *easy = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");
    headers = curl_slist_append(headers, "User-Agent: respite"); /* the same request as the sender's */
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
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, ignore_body);
        long status = 0;
        if (curl_easy_perform(easy) != CURLE_OK || curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) ||
            status != 200) {
            fprintf(stderr, "plain loop: a post failed\n");
            exit(1);
        }
    }
    double took = respite_now() - start;
    *cpu = cpu_now() - cpu_start;
    free(body);
    curl_slist_free_all(headers);
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
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
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
    printf("%d events of about 75 bytes, batches of %d, %s\n", n, batch, url);
    printf("%-10s %20s %24s %26s\n", "events/s", "plain libcurl loop", "sender (queued first)",
           "sender (enqueue + send)");
    double best[3] = {0, 0, 0}, cpu_best[3] = {1e9, 1e9, 1e9};
    for (int r = 1; r <= rounds; r++) {
        /* a run left out (--only-sender, --only-plain) reports 0 CPU */
        double rate[3], cpu[3] = {0, 0, 0};
        rate[0] = only_sender ? 1 : n / run_plain(url, events, n, batch, &cpu[0]);
        rate[1] = only_plain ? 1 : n / run_sender(url, events, n, batch, 1, &cpu[1]);
        rate[2] = only_sender || only_plain ? 1 : n / run_sender(url, events, n, batch, 0, &cpu[2]);
        for (int k = 0; k < 3; k++) {
            best[k] = rate[k] > best[k] ? rate[k] : best[k];
            cpu_best[k] = cpu[k] < cpu_best[k] ? cpu[k] : cpu_best[k];
        }
        printf("round %-4d %20.0f %16.0f (%5.1f%%) %18.0f (%5.1f%%)\n", r, rate[0], rate[1],
               100.0 * rate[1] / rate[0], rate[2], 100.0 * rate[2] / rate[0]);
    }
    printf("best       %20.0f %16.0f (%5.1f%%) %18.0f (%5.1f%%)\n", best[0], best[1], 100.0 * best[1] / best[0],
           best[2], 100.0 * best[2] / best[0]);
    double per_batch = 1e6 * batch / n;
    printf("CPU us/batch (all threads, least) %8.1f %16.1f %27.1f\n", cpu_best[0] * per_batch,
           cpu_best[1] * per_batch, cpu_best[2] * per_batch);
    int64_t expected = (int64_t)rounds * 3 * ((n + batch - 1) / batch);
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

/* Sender throughput: events per second the background sender delivers to
 * the local fault server, next to a curl-multi loop that posts the same
 * batches with the sender's options (NOSIGNAL, one kept-alive connection,
 * the same headers, user agent, timeout, progress callback and bodies).
 * Each round makes a loop and two senders and cuts the events into 10
 * blocks; in every block each kind sends the same events, one after the
 * other, the order rotating: a block is a paired measurement, its kinds a
 * few tens of milliseconds apart, so a change in the machine's load falls
 * on them alike (whole runs one after the other gave ratios from 50 % to
 * 160 % on a loaded machine). The figures are the median (and quartiles)
 * of the per-block ratios to the loop, over every round's blocks.
 * "queued first" times delivery alone: a block's events are queued before
 * the clock starts, as the loop has its events in memory; "enqueue + send"
 * has the producer enqueueing on the same cores while the sender sends. The
 * CPU time per batch (all threads: client, sender thread and server) is
 * steadier than the rates on a loaded machine.
 * Target: the sender (queued first) at 95 % of the loop or better.
 *
 *   bench_sender [events per kind and round] [batch] [rounds] [sender|plain]
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
/* Each round is cut into blocks that take turns (the order rotating), so a
 * change in the machine's load falls on every kind alike. */
#define BLOCKS 10

/* The baseline: build each batch as the sender does and POST it through a
 * curl multi handle, as the sender does, with the sender's options set once
 * and its connection kept for the round. */
typedef struct plain_loop {
    CURL *easy;
    CURLM *multi;
    struct curl_slist *headers;
    char *body;
} plain_loop;

static plain_loop plain_new(const char *url, int batch)
{
    plain_loop p = {curl_easy_init(), curl_multi_init(), NULL, malloc((size_t)batch * 128 + 16)};
    p.headers = curl_slist_append(NULL, "Content-Type: application/json");
    p.headers = curl_slist_append(p.headers, "Expect:");
    curl_easy_setopt(p.easy, CURLOPT_URL, url);
    curl_easy_setopt(p.easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(p.easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(p.easy, CURLOPT_TIMEOUT_MS, TIMEOUT_SECONDS * 1000L);
    curl_easy_setopt(p.easy, CURLOPT_WRITEFUNCTION, ignore_body);
    curl_easy_setopt(p.easy, CURLOPT_HEADERFUNCTION, ignore_body);
    curl_easy_setopt(p.easy, CURLOPT_HTTPHEADER, p.headers);
    curl_easy_setopt(p.easy, CURLOPT_USERAGENT, "respite");
    curl_easy_setopt(p.easy, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(p.easy, CURLOPT_XFERINFOFUNCTION, on_progress);
    return p;
}

static void plain_free(plain_loop *p)
{
    free(p->body);
    curl_slist_free_all(p->headers);
    curl_multi_cleanup(p->multi);
    curl_easy_cleanup(p->easy);
}

/* Posts events[0 .. n-1] in batches; the wall-clock seconds it took, and
 * in *cpu the CPU seconds of the whole process. */
static __attribute__((noinline)) double run_plain(plain_loop *p, char **events, int n, int batch, double *cpu)
{
    double start = respite_now(), cpu_start = cpu_now();
    for (int i = 0; i < n; i += batch) {
        size_t len = 0;
        p->body[len++] = '[';
        for (int j = i; j < i + batch && j < n; j++) {
            if (j > i)
                p->body[len++] = ',';
            size_t k = strlen(events[j]);
            memcpy(p->body + len, events[j], k);
            len += k;
        }
        p->body[len++] = ']';
        curl_easy_setopt(p->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        curl_easy_setopt(p->easy, CURLOPT_POSTFIELDS, p->body);
        CURLcode result = CURLE_FAILED_INIT;
        int running = 1;
        curl_multi_add_handle(p->multi, p->easy);
        while (running) {
            if (curl_multi_perform(p->multi, &running) != CURLM_OK)
                break;
            if (running)
                curl_multi_poll(p->multi, NULL, 0, 1000, NULL);
        }
        int left;
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(p->multi, &left)))
            if (msg->msg == CURLMSG_DONE && msg->easy_handle == p->easy)
                result = msg->data.result;
        curl_multi_remove_handle(p->multi, p->easy);
        long status = 0;
        if (result != CURLE_OK || curl_easy_getinfo(p->easy, CURLINFO_RESPONSE_CODE, &status) || status != 200) {
            fprintf(stderr, "plain loop: a post failed\n");
            exit(1);
        }
    }
    *cpu = cpu_now() - cpu_start;
    return respite_now() - start;
}

/* A sender for a round. hold: min_entries_per_message, the events it holds
 * back until that many are queued. */
static respite_sender *sender_new(const char *url, int batch, int hold)
{
    respite_error err;
    respite_error_clear(&err);
    char min[32], max[32];
    snprintf(min, sizeof min, "%d", hold);
    snprintf(max, sizeof max, "%d", batch);
    respite_settings *ss = respite_settings_new("sender", &err);
    respite_policy *policy = respite_policy_from_json(
        "{\"name\":\"bench\",\"maximum_capacity\":1000000,\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":"
        "\"discard\"}]}",
        NULL, &err);
    respite_sender *sender = NULL;
    if (ss && policy && respite_settings_set_text(ss, "url", url, &err) == RESPITE_OK &&
        respite_settings_set_text(ss, "prefix", "[", &err) == RESPITE_OK &&
        respite_settings_set_text(ss, "separator", ",", &err) == RESPITE_OK &&
        respite_settings_set_text(ss, "suffix", "]", &err) == RESPITE_OK &&
        respite_settings_set_number(ss, "timeout_seconds", TIMEOUT_SECONDS, &err) == RESPITE_OK &&
        respite_settings_set_text(ss, "min_entries_per_message", min, &err) == RESPITE_OK &&
        respite_settings_set_text(ss, "max_entries_per_message", max, &err) == RESPITE_OK)
        sender = respite_sender_new(ss, NULL, NULL, policy, &err);
    if (!sender) {
        fprintf(stderr, "sender: %s\n", err.message);
        exit(1);
    }
    respite_policy_free(policy); /* the queue holds it */
    respite_settings_free(ss);
    return sender;
}

/* Every event the sender accepted was delivered. */
static void sender_free(respite_sender *sender, int64_t expected)
{
    respite_error err;
    respite_sender_stats st;
    respite_sender_stats_get(sender, &st, &err);
    if (st.queue.delivered != expected) {
        fprintf(stderr, "sender delivered %lld of %lld\n", (long long)st.queue.delivered, (long long)expected);
        exit(1);
    }
    respite_sender_free(sender);
}

/* The sender with events[0 .. n-1]. queued_first 0: time enqueueing every
 * event (the producer) and the flush that ends the block. queued_first 1:
 * the sender holds n events back (min_entries_per_message), so the clock
 * starts at the last enqueue, which releases them, and stops when the flush
 * returns: delivery alone, as the plain loop does it. *cpu: CPU seconds of
 * the whole process in the same span. */
static __attribute__((noinline)) double run_sender(respite_sender *sender, char **events, int n, int queued_first,
                                                   double *cpu)
{
    respite_error err;
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
    *cpu = cpu_now() - cpu_start;
    return respite_now() - start;
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
    /* BLOCKS blocks of whole batches per kind and round */
    int block = n / BLOCKS / batch * batch;
    if (block < batch)
        block = batch;
    char **events = make_events(block * BLOCKS);
    printf("%d events of about 75 bytes per kind and round, batches of %d, %s; the kinds take turns in %d blocks, "
           "order rotating\n",
           block * BLOCKS, batch, url, BLOCKS);
    printf("%-8s %18s %24s %26s\n", "events/s", "curl-multi loop", "sender (queued first)", "sender (enqueue + send)");
    enum { PLAIN, QUEUED, ENQUEUE, KINDS };
    int pairs = rounds * BLOCKS; /* every block is a paired measurement */
    double *ratio[KINDS], *cpu_batch[KINDS];
    double *cpu_ratio = calloc((size_t)pairs, sizeof(double)); /* queued first / loop, CPU per batch */
    for (int k = 0; k < KINDS; k++) {
        ratio[k] = calloc((size_t)pairs, sizeof(double));
        cpu_batch[k] = calloc((size_t)pairs, sizeof(double));
    }
    double per_batch = 1e6 * batch / (double)block; /* CPU seconds per block -> us per batch */
    for (int r = 0; r < rounds; r++) {
        plain_loop plain = plain_new(url, batch);
        respite_sender *queued = sender_new(url, batch, block), *enqueueing = sender_new(url, batch, batch);
        double took[KINDS] = {0, 0, 0};
        int ran[KINDS] = {0, 0, 0};
        for (int b = 0; b < BLOCKS; b++) {
            char **slice = events + (size_t)b * (size_t)block;
            /* a kind left out (sender, plain) counts as 1 s and 0 CPU */
            double t[KINDS] = {1, 1, 1}, cpu[KINDS] = {0, 0, 0};
            for (int i = 0; i < KINDS; i++) {
                int k = (r + b + i) % KINDS;
                if (k == PLAIN && !only_sender)
                    t[k] = run_plain(&plain, slice, block, batch, &cpu[k]);
                else if (k == QUEUED && !only_plain)
                    t[k] = run_sender(queued, slice, block, 1, &cpu[k]);
                else if (k == ENQUEUE && !only_plain && !only_sender)
                    t[k] = run_sender(enqueueing, slice, block, 0, &cpu[k]);
                else
                    continue;
                took[k] += t[k];
                ran[k] += block;
            }
            int at = r * BLOCKS + b;
            for (int k = 0; k < KINDS; k++) {
                ratio[k][at] = t[PLAIN] / t[k]; /* rates: the same events in each */
                cpu_batch[k][at] = cpu[k] * per_batch;
            }
            cpu_ratio[at] = cpu[PLAIN] > 0 ? cpu[QUEUED] / cpu[PLAIN] : 0;
        }
        plain_free(&plain);
        sender_free(queued, ran[QUEUED]);
        sender_free(enqueueing, ran[ENQUEUE]);
        double rate[KINDS];
        for (int k = 0; k < KINDS; k++)
            rate[k] = ran[k] > 0 ? ran[k] / took[k] : 1;
        printf("round %-2d %18.0f %16.0f (%5.1f%%) %18.0f (%5.1f%%)\n", r + 1, rate[PLAIN], rate[QUEUED],
               100.0 * rate[QUEUED] / rate[PLAIN], rate[ENQUEUE], 100.0 * rate[ENQUEUE] / rate[PLAIN]);
    }
    double mid[KINDS], cpu_mid[KINDS];
    for (int k = 0; k < KINDS; k++) {
        mid[k] = bench_median(ratio[k], pairs); /* sorts: [0] is the min, [pairs-1] the max */
        cpu_mid[k] = bench_median(cpu_batch[k], pairs);
    }
    int q1 = (pairs - 1) / 4, q3 = (pairs - 1) - (pairs - 1) / 4; /* quartiles of the sorted ratios */
    printf("per-block ratio to the loop (%d blocks): queued first median %.1f%% (quartiles %.1f%%-%.1f%%, "
           "min %.1f%%, max %.1f%%); enqueue + send median %.1f%% (quartiles %.1f%%-%.1f%%)\n",
           pairs, 100 * mid[QUEUED], 100 * ratio[QUEUED][q1], 100 * ratio[QUEUED][q3], 100 * ratio[QUEUED][0],
           100 * ratio[QUEUED][pairs - 1], 100 * mid[ENQUEUE], 100 * ratio[ENQUEUE][q1], 100 * ratio[ENQUEUE][q3]);
    printf("CPU us/batch (all threads, median) %7.1f %16.1f %27.1f\n", cpu_mid[PLAIN], cpu_mid[QUEUED],
           cpu_mid[ENQUEUE]);
    double cpu_ratio_mid = bench_median(cpu_ratio, pairs);
    printf("CPU per batch, queued first / loop, per block: median %.2f (quartiles %.2f-%.2f)\n", cpu_ratio_mid,
           cpu_ratio[q1], cpu_ratio[q3]);
    printf("result\tsender >= 95%% of a curl-multi loop with its options\tmedian of %d paired blocks %.1f%% "
           "(quartiles %.1f%%-%.1f%%); with the producer enqueueing in the same run %.1f%%; CPU per batch %.2fx "
           "the loop's\t%s\n",
           pairs, 100 * mid[QUEUED], 100 * ratio[QUEUED][q1], 100 * ratio[QUEUED][q3], 100 * mid[ENQUEUE],
           cpu_ratio_mid, mid[QUEUED] >= 0.95 ? "met" : "NOT met");
    free(cpu_ratio);
    for (int k = 0; k < KINDS; k++) {
        free(ratio[k]);
        free(cpu_batch[k]);
    }
    int64_t expected = (int64_t)rounds * (only_sender || only_plain ? 1 : 3) * BLOCKS * (block / batch);
    if (respite_fault_server_requests(server) != expected)
        fprintf(stderr, "warning: the server saw %lld requests, expected %lld\n",
                (long long)respite_fault_server_requests(server), (long long)expected);
    for (int i = 0; i < block * BLOCKS; i++)
        free(events[i]);
    free(events);
    respite_fault_server_stop(server);
    curl_global_cleanup();
    return 0;
}

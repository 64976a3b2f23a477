/* The fault server: its script language, its records, and the standalone
 * program's HTTP control protocol (tools/fault_server/README.md). */
#include "http_test_util.h"

#include <curl/curl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct answer {
    long status;
    char body[8192];
    size_t size;
    int curl_code;
} answer;

static size_t keep_body(char *data, size_t size, size_t count, void *user)
{
    answer *a = user;
    size_t n = size * count, room = sizeof a->body - 1 - a->size;
    memcpy(a->body + a->size, data, n < room ? n : room);
    a->size += n < room ? n : room;
    a->body[a->size] = '\0';
    return n;
}

/* One plain libcurl call (the fault server is tested without respite). */
static answer call(int port, const char *method, const char *path, const char *body)
{
    answer a;
    memset(&a, 0, sizeof a);
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, keep_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &a);
    if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body ? body : "");
    }
    a.curl_code = curl_easy_perform(easy);
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &a.status);
    curl_easy_cleanup(easy);
    return a;
}

static void test_script_errors_name_the_step(void **state)
{
    (void)state;
    respite_fault_server *s = server_start(NULL);
    char error[256];
    assert_int_equal(respite_fault_server_set_script(s, "200; 7*teapot", error, sizeof error), -1);
    assert_string_equal(error, "step \"7*teapot\": \"teapot\" is not an answer (a status from 200 to 599, healthy, "
                               "down, hang, reset, close, garbage or random)");
    assert_int_equal(respite_fault_server_set_script(s, "503 delay=-1", error, sizeof error), -1);
    assert_string_equal(error, "step \"503 delay=-1\": delay must be seconds from 0 (got \"-1\")");
    assert_int_equal(respite_fault_server_set_script(s, "0*200", error, sizeof error), -1);
    assert_int_equal(respite_fault_server_set_script(s, "random p=2", error, sizeof error), -1);
    assert_int_equal(respite_fault_server_set_script(s, "[1]", error, sizeof error), -1);
    assert_int_equal(respite_fault_server_set_script(s, " ; ", error, sizeof error), -1);
    assert_string_equal(error, "the script has no steps");
    respite_fault_server_stop(s);
}

/* Steps answer in order; the last repeats; delays and quoted bodies. */
static void test_steps_answer_in_order(void **state)
{
    (void)state;
    respite_fault_server *s = server_start("2*503 retry_after=3; \"201\" \"body=a b; c\"\n# comment\n404");
    int port = respite_fault_server_port(s);
    long want[] = {503, 503, 201, 404, 404};
    for (int i = 0; i < 5; i++) {
        answer a = call(port, "POST", "/x", "hello");
        assert_int_equal(a.status, want[i]);
        if (i == 2)
            assert_string_equal(a.body, "a b; c");
    }
    assert_int_equal(respite_fault_server_requests(s), 5);
    assert_int_equal(respite_fault_server_count(s, 503), 2);
    assert_int_equal(respite_fault_server_count(s, 404), 2);
    assert_int_equal(respite_fault_server_body_bytes(s), 25);
    respite_fault_record rec;
    assert_int_equal(respite_fault_server_record(s, 4, &rec), 0);
    assert_string_equal(rec.method, "POST");
    assert_string_equal(rec.path, "/x");
    assert_string_equal(rec.body, "hello");
    assert_int_equal(rec.status, 404);
    respite_fault_record_clear(&rec);
    assert_int_equal(respite_fault_server_record(s, 5, &rec), -1);

    server_script(s, "[\"200 delay=0.2\", \"hang for=0.1\"]");
    double t0 = respite_now();
    assert_int_equal(call(port, "GET", "/", NULL).status, 200);
    assert_true(respite_now() - t0 >= 0.2);
    answer hung = call(port, "GET", "/", NULL);
    assert_int_equal(hung.status, 0);
    assert_int_not_equal(hung.curl_code, CURLE_OK);
    assert_int_equal(respite_fault_server_count(s, 0), 1);

    respite_fault_server_reset(s);
    assert_int_equal(respite_fault_server_requests(s), 0);
    assert_int_equal(respite_fault_server_record_count(s), 0);
    assert_int_equal(call(port, "GET", "/", NULL).status, 200);
    respite_fault_server_stop(s);
}

/* A path starting with a status answers it, leaving the script where it was. */
static void test_a_status_path_asks_for_that_status(void **state)
{
    (void)state;
    respite_fault_server *s = server_start("201; 202");
    int port = respite_fault_server_port(s);
    assert_int_equal(call(port, "GET", "/503", NULL).status, 503);
    assert_int_equal(call(port, "POST", "/429/v1/events?retry_after=7", "x").status, 429);
    assert_int_equal(call(port, "GET", "/v1/503", NULL).status, 201); /* only the first segment */
    assert_int_equal(call(port, "GET", "/5030", NULL).status, 202);
    assert_int_equal(call(port, "GET", "/199", NULL).status, 202);

    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/503?retry_after=7", port);
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    assert_int_equal(curl_easy_perform(easy), CURLE_OK);
    curl_off_t retry_after = 0;
    curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &retry_after);
    assert_int_equal(retry_after, 7);
    curl_easy_cleanup(easy);

    assert_int_equal(respite_fault_server_requests(s), 6);
    assert_int_equal(respite_fault_server_count(s, 503), 2);
    respite_fault_server_stop(s);
}

/* The program: port on stdout, scripted over /__control/. */
static void test_program_is_controlled_over_http(void **state)
{
    (void)state;
    int out[2];
    assert_int_equal(pipe(out), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execl(RESPITE_FAULT_SERVER_PROGRAM, RESPITE_FAULT_SERVER_PROGRAM, "--script", "418", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[32] = "";
    FILE *from = fdopen(out[0], "r");
    assert_non_null(fgets(line, sizeof line, from));
    int port = atoi(line);
    assert_true(port > 0);

    assert_int_equal(call(port, "GET", "/", NULL).status, 418);
    answer a = call(port, "POST", "/__control/script", "2*503; 200 body=fine");
    assert_int_equal(a.status, 200);
    assert_int_equal(call(port, "POST", "/a", "one").status, 503);
    assert_int_equal(call(port, "POST", "/a", "two").status, 503);
    assert_int_equal(call(port, "POST", "/b", "three").status, 200);
    a = call(port, "GET", "/__control/stats", NULL);
    assert_int_equal(a.status, 200);
    assert_non_null(strstr(a.body, "\"requests\":4"));
    assert_non_null(strstr(a.body, "\"statuses\":{\"200\":1,\"418\":1,\"503\":2}"));
    assert_non_null(strstr(a.body, "\"body\":\"three\""));
    a = call(port, "GET", "/__control/stats?bodies=0", NULL);
    assert_null(strstr(a.body, "\"body\":"));

    a = call(port, "POST", "/__control/script", "nonsense");
    assert_int_equal(a.status, 400);
    assert_non_null(strstr(a.body, "\"nonsense\" is not an answer"));
    assert_int_equal(call(port, "POST", "/__control/reset", NULL).status, 200);
    a = call(port, "GET", "/__control/stats", NULL);
    assert_non_null(strstr(a.body, "\"requests\":0"));

    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    fclose(from);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script_errors_name_the_step),
        cmocka_unit_test(test_steps_answer_in_order),
        cmocka_unit_test(test_a_status_path_asks_for_that_status),
        cmocka_unit_test(test_program_is_controlled_over_http),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

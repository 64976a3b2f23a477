/* C11: a client made before fork() works in the child on connections of
 * its own, and neither using nor freeing it there touches the parent's. */
#include "http_test_util.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_of(respite_client *client, respite_fault_server *server)
{
    respite_error err;
    respite_error_clear(&err);
    respite_response *r = respite_client_request(client, "GET", respite_fault_server_url(server), NULL, NULL, 0, &err);
    int status = r ? respite_response_status(r) : -1;
    respite_response_free(r);
    return status;
}

/* The child's checks, as an exit status: 0 when every one held. Two
 * threads race for the child's first pool. */
static void *call_in_thread(void *arg)
{
    void **args = arg;
    intptr_t status = status_of(args[0], args[1]);
    return (void *)status;
}

/* ThreadSanitizer cannot start threads in a child of a threaded process:
 * there the child calls from its one thread. */
#if defined(__SANITIZE_THREAD__)
#define CHILD_THREADS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHILD_THREADS 0
#endif
#endif
#ifndef CHILD_THREADS
#define CHILD_THREADS 2
#endif

static int in_child(respite_client *client, respite_fault_server *server)
{
    if (CHILD_THREADS == 0 && (status_of(client, server) != 200 || status_of(client, server) != 200))
        return 3;
    pthread_t threads[2];
    void *args[2] = {client, server};
    for (int i = 0; i < CHILD_THREADS; i++)
        if (pthread_create(&threads[i], NULL, call_in_thread, args) != 0)
            return 1;
    int failed = 0;
    for (int i = 0; i < CHILD_THREADS; i++) {
        void *status;
        pthread_join(threads[i], &status);
        failed |= (intptr_t)status != 200;
    }
    if (failed || status_of(client, server) != 200)
        return 2;
    respite_client_free(client); /* the child's pool; the parent's connections stay open */
    return 0;
}

static void test_C11_a_client_made_before_fork_works_in_the_child(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_gate *gate = gate_with(1, 60);
    respite_error err;
    respite_error_clear(&err);
    respite_client *client = respite_client_new(NULL, gate, NULL, &err);
    assert_non_null(client);
    assert_int_equal(status_of(client, server), 200); /* its connection is now in the pool */

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(in_child(client, server));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    /* The parent's client goes on over its pooled connection. */
    assert_int_equal(status_of(client, server), 200);
    assert_int_equal(respite_fault_server_requests(server), 5); /* the parent's two, the child's three */
    respite_gate_stats st;
    assert_int_equal(respite_gate_stats_get(gate, &st, &err), RESPITE_OK);
    assert_int_equal(st.admitted, 2); /* the child's gate is its own copy */
    respite_client_free(client);
    respite_gate_free(gate);
    respite_fault_server_stop(server);
}

/* C11: a client freed in a child that never called leaves the parent's. */
static void test_C11_a_client_freed_unused_in_the_child(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_error err;
    respite_error_clear(&err);
    respite_client *client = respite_client_new(NULL, NULL, NULL, &err);
    assert_int_equal(status_of(client, server), 200);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        respite_client_free(client);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(status_of(client, server), 200);
    respite_client_free(client);
    respite_fault_server_stop(server);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_C11_a_client_made_before_fork_works_in_the_child),
        cmocka_unit_test(test_C11_a_client_freed_unused_in_the_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* C11: a client made before fork() is the parent's; in the child it fails
 * with `closed` and sends nothing, and freeing it there leaves the parent's
 * connections alone. */
#include "http_test_util.h"

#include <sys/wait.h>
#include <unistd.h>

static const char belongs[] = "client belongs to the process that made it: this process was forked after, and its "
                              "connections are the parent's; make a new client here";

/* The child's checks, as an exit status: 0 when every one held. */
static int in_child(respite_client *client, respite_fault_server *server)
{
    respite_error err;
    respite_error_clear(&err);
    respite_response *r = respite_client_request(client, "GET", respite_fault_server_url(server), NULL, NULL, 0, &err);
    if (r || err.status != RESPITE_E_CLOSED || strcmp(err.message, belongs) != 0)
        return 1;
    /* A client made here works. */
    respite_client *own = respite_client_new(NULL, NULL, NULL, &err);
    r = own ? respite_client_request(own, "GET", respite_fault_server_url(server), NULL, NULL, 0, &err) : NULL;
    int status = r ? respite_response_status(r) : -1;
    respite_response_free(r);
    respite_client_free(own);
    if (status != 200)
        return 2;
    respite_client_free(client); /* the parent's connections stay open */
    return 0;
}

static void test_C11_a_client_made_before_fork_is_closed_in_the_child(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_gate *gate = gate_with(1, 60);
    respite_error err;
    respite_error_clear(&err);
    respite_client *client = respite_client_new(NULL, gate, NULL, &err);
    assert_non_null(client);
    respite_response *r = respite_client_request(client, "GET", respite_fault_server_url(server), NULL, NULL, 0, &err);
    assert_non_null(r); /* its connection is now in the pool */
    respite_response_free(r);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(in_child(client, server));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    /* The parent's client goes on over its pooled connection. */
    r = respite_client_request(client, "GET", respite_fault_server_url(server), NULL, NULL, 0, &err);
    if (!r)
        fail_msg("the parent's request: %s", err.message);
    assert_int_equal(respite_response_status(r), 200);
    respite_response_free(r);
    assert_int_equal(respite_fault_server_requests(server), 3); /* the parent's two, the child's own client's one */
    respite_client_free(client);
    respite_gate_free(gate);
    respite_fault_server_stop(server);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_C11_a_client_made_before_fork_is_closed_in_the_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

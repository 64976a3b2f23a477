/* respite-fault-server: the fault server as a program for the language test
 * suites. Prints its port on the first line of stdout, then serves until
 * SIGINT/SIGTERM (or, with --exit-on-eof, until stdin closes). */
#include "fault_server.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: respite-fault-server [--port N] [--script TEXT] [--exit-on-eof]\n"
                 "  prints the port, then serves on 127.0.0.1 until SIGINT/SIGTERM\n"
                 "  (control protocol: tools/fault_server/README.md)\n");
}

int main(int argc, char **argv)
{
    int port = 0, exit_on_eof = 0;
    const char *script = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            port = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--script") == 0 && i + 1 < argc) {
            script = argv[++i];
        } else if (strcmp(argv[i], "--exit-on-eof") == 0) {
            exit_on_eof = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    char error[512];
    respite_fault_server *server = respite_fault_server_start(port, error, sizeof error);
    if (!server) {
        fprintf(stderr, "respite-fault-server: %s\n", error);
        return 1;
    }
    if (script && respite_fault_server_set_script(server, script, error, sizeof error) != 0) {
        fprintf(stderr, "respite-fault-server: %s\n", error);
        respite_fault_server_stop(server);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    printf("%d\n", respite_fault_server_port(server));
    fflush(stdout);
    while (!stop_requested) {
        struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
        int n = poll(exit_on_eof ? &pfd : NULL, exit_on_eof ? 1 : 0, 200);
        if (exit_on_eof && n > 0) {
            char buf[256];
            if (read(STDIN_FILENO, buf, sizeof buf) <= 0)
                break;
        }
    }
    respite_fault_server_stop(server);
    return 0;
}

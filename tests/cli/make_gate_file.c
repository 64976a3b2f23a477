/* make_gate_file PATH - writes a shared gate file with four gates in known
 * states for tests/cli/test_gates.sh, then detaches (the file stays):
 *   cloud    3 failures within 60s: open, pausing 30s
 *   billing  3 successes and 1 failure of 5: closed, 1 failure in the window
 *   forever  recover_never, 1 failure: open until a reset
 *   search   1 failure, a 0.05s pause that has ended: probing, no probe out */
#include "respite.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *path;

static respite_gate *open_gate(const char *name, double n, double recovery, int recover_never)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    if (!s || respite_settings_set_text(s, "shared_path", path, &err) ||
        respite_settings_set_text(s, "name", name, &err) ||
        respite_settings_set_number(s, "failures_to_enter_recovery", n, &err) ||
        respite_settings_set_number(s, "failures_window_seconds", 60, &err) ||
        respite_settings_set_number(s, "recovery_seconds", recovery, &err) ||
        respite_settings_set_boolean(s, "recover_never", recover_never, &err)) {
        fprintf(stderr, "make_gate_file: settings of %s: %s\n", name, err.message);
        exit(1);
    }
    respite_gate *gate = respite_gate_new(s, &err);
    respite_settings_free(s);
    if (!gate) {
        fprintf(stderr, "make_gate_file: %s: %s\n", name, err.message);
        exit(1);
    }
    return gate;
}

static void call(respite_gate *gate, int outcome)
{
    respite_error err = {0};
    int64_t permit = respite_gate_admit_now(gate, &err);
    if (permit <= 0 || respite_gate_report_now(gate, permit, outcome, 0.0, &err) != RESPITE_OK) {
        fprintf(stderr, "make_gate_file: call: %s\n", err.message);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_gate_file PATH\n");
        return 2;
    }
    path = argv[1];
    respite_gate *cloud = open_gate("cloud", 3, 30, 0);
    respite_gate *billing = open_gate("billing", 5, 30, 0);
    respite_gate *forever = open_gate("forever", 1, 30, 1);
    respite_gate *search = open_gate("search", 1, 0.05, 0);
    for (int i = 0; i < 3; i++)
        call(cloud, RESPITE_OUTCOME_TRANSPORT);
    for (int i = 0; i < 3; i++)
        call(billing, RESPITE_OUTCOME_SUCCESS);
    call(billing, RESPITE_OUTCOME_SERVER_ERROR);
    call(forever, RESPITE_OUTCOME_TRANSPORT);
    call(search, RESPITE_OUTCOME_TRANSPORT);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    respite_gate_free(cloud);
    respite_gate_free(billing);
    respite_gate_free(forever);
    respite_gate_free(search);
    return 0;
}

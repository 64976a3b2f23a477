/* respite check-policy FILE... - validates delivery policies with the core's
 * own parser and rules, printing every problem with its place. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite check-policy FILE...\n"
            "\n"
            "Validates delivery policies (JSON, Astarte's trigger delivery policy model)\n"
            "and prints every problem: the file, the JSON pointer of the offending value\n"
            "and the core's message; syntax errors give the line and column.\n"
            "FILE - reads standard input.\n"
            "\n"
            "exit status: 0 every policy is valid, 1 some policy is invalid,\n"
            "             2 usage error or a file that cannot be read\n");
}

static void print_problems(const char *path, const respite_problems *problems)
{
    for (int i = 0; i < respite_problems_count(problems); i++) {
        const char *pointer = respite_problems_pointer(problems, i);
        const char *message = respite_problems_message(problems, i);
        int line = respite_problems_line(problems, i);
        if (line > 0)
            printf("  %s:%d:%d: %s\n", path, line, respite_problems_column(problems, i), message);
        else
            printf("  %s: %s: %s\n", path, *pointer ? pointer : "(document)", message);
    }
}

static void print_valid(const char *path, const respite_policy *policy)
{
    printf("%s: valid: \"%s\", capacity %d, %d handler%s", path, respite_policy_name(policy),
           respite_policy_maximum_capacity(policy), respite_policy_handler_count(policy),
           respite_policy_handler_count(policy) == 1 ? "" : "s");
    if (respite_policy_retry_times(policy) > 0)
        printf(", retry_times %d", respite_policy_retry_times(policy));
    if (respite_policy_event_ttl(policy) > 0)
        printf(", event_ttl %ds", respite_policy_event_ttl(policy));
    if (respite_policy_has_prefetch_count(policy))
        printf(", prefetch_count %d", respite_policy_prefetch_count(policy));
    printf("\n");
}

/* CLI_EXIT_OK, _FAILED (invalid) or _USAGE (unreadable, or the core failed). */
static int check_one(const char *file)
{
    const char *path = strcmp(file, "-") == 0 ? "<stdin>" : file;
    size_t size = 0;
    /* P1: one byte past the limit is enough to know the policy is refused. */
    char *text = cli_read_file(file, RESPITE_POLICY_MAX_BYTES + 1, &size);
    if (!text) {
        fprintf(stderr, "respite check-policy: cannot read %s: %s\n", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    respite_policy *policy = problems ? respite_policy_from_json_n(text, size, problems, &err) : NULL;
    free(text);
    int result;
    if (policy) {
        print_valid(path, policy);
        result = CLI_EXIT_OK;
    } else if (err.status == RESPITE_E_INVALID_POLICY) {
        int count = respite_problems_count(problems);
        printf("%s: invalid: %d problem%s\n", path, count, count == 1 ? "" : "s");
        print_problems(path, problems);
        result = CLI_EXIT_FAILED;
    } else {
        fprintf(stderr, "respite check-policy: %s: %s: %s\n", path, respite_status_name(err.status), err.message);
        result = CLI_EXIT_USAGE;
    }
    respite_policy_free(policy);
    respite_problems_free(problems);
    return result;
}

int cmd_check_policy(int argc, char **argv)
{
    const char **files = calloc((size_t)argc, sizeof *files);
    int count = 0, options_end = 0;
    for (int i = 1; i < argc; i++) {
        if (!options_end && cli_is_help(argv[i])) {
            free(files);
            print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (!options_end && strcmp(argv[i], "--") == 0) {
            options_end = 1;
        } else if (!options_end && argv[i][0] == '-' && argv[i][1] != '\0') {
            free(files);
            return cli_usage_error("check-policy", "unknown option %s (respite check-policy --help)", argv[i]);
        } else {
            files[count++] = argv[i];
        }
    }
    if (count == 0) {
        free(files);
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    int worst = CLI_EXIT_OK, invalid = 0, unchecked = 0;
    for (int i = 0; i < count; i++) {
        int result = check_one(files[i]);
        if (result == CLI_EXIT_FAILED)
            invalid++;
        if (result == CLI_EXIT_USAGE)
            unchecked++;
        if (result > worst)
            worst = result;
    }
    if (count > 1 && unchecked)
        printf("%d files: %d valid, %d invalid, %d not checked\n", count, count - invalid - unchecked, invalid,
               unchecked);
    else if (count > 1)
        printf("%d files: %d valid, %d invalid\n", count, count - invalid, invalid);
    free(files);
    return worst;
}

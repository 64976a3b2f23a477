/* respite check-policy FILE... - validates delivery policies with the core's
 * own parser and rules, printing every problem with its place. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: respite check-policy [--json] FILE...\n"
            "\n"
            "Validates delivery policies (JSON, Astarte's trigger delivery policy model)\n"
            "and prints every problem: the file, the JSON pointer of the offending value\n"
            "and the core's message; syntax errors give the line and column.\n"
            "FILE - reads standard input.\n"
            "\n"
            "  --json   one JSON object on standard output instead:\n"
            "           {\"files\": [{\"file\", \"result\": \"valid\" | \"invalid\" |\n"
            "           \"unreadable\" | \"error\", \"policy\": the policy as the core reads it\n"
            "           or null, \"problems\": [{\"pointer\", \"line\", \"column\",\n"
            "           \"message\"}], \"error\": text or null}], \"valid\": N,\n"
            "           \"invalid\": N, \"not_checked\": N}\n"
            "\n"
            "exit status: 0 every policy is valid, 1 some policy is invalid,\n"
            "             2 usage error or a file that cannot be read\n");
}

/* ------------------------------------------------------------- checking */

/* The check of one file as a record, the same for the text and --json:
 * {"file", "result", "policy", "problems", "error"}. */
static json_t *record_new(const char *path, const char *result)
{
    return json_pack("{s:s, s:s, s:n, s:[], s:n}", "file", path, "result", result, "policy", "problems", "error");
}

static json_t *problems_json(const respite_problems *problems)
{
    json_t *list = json_array();
    for (int i = 0; i < respite_problems_count(problems); i++) {
        int line = respite_problems_line(problems, i);
        json_array_append_new(list, json_pack("{s:s, s:o, s:o, s:s}", "pointer", respite_problems_pointer(problems, i),
                                              "line", line > 0 ? json_integer(line) : json_null(), "column",
                                              line > 0 ? json_integer(respite_problems_column(problems, i)) : json_null(),
                                              "message", respite_problems_message(problems, i)));
    }
    return list;
}

/* The policy as the core writes it back (normalised), as JSON. */
static json_t *policy_json(const respite_policy *policy)
{
    char *text = respite_policy_to_json(policy, NULL);
    json_t *value = text ? json_loads(text, 0, NULL) : NULL;
    respite_free_string(text);
    return value ? value : json_null();
}

static json_t *check_one(const char *file)
{
    const char *path = strcmp(file, "-") == 0 ? "<stdin>" : file;
    size_t size = 0;
    /* P1: one byte past the limit is enough to know the policy is refused. */
    char *text = cli_read_file(file, RESPITE_POLICY_MAX_BYTES + 1, &size);
    if (!text) {
        json_t *record = record_new(path, "unreadable");
        json_object_set_new(record, "error", json_string(strerror(errno)));
        return record;
    }
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    respite_policy *policy = problems ? respite_policy_from_json_n(text, size, problems, &err) : NULL;
    free(text);
    json_t *record;
    if (policy) {
        record = record_new(path, "valid");
        json_object_set_new(record, "policy", policy_json(policy));
    } else if (err.status == RESPITE_E_INVALID_POLICY) {
        record = record_new(path, "invalid");
        json_object_set_new(record, "problems", problems_json(problems));
    } else {
        record = record_new(path, "error");
        char why[RESPITE_ERROR_MESSAGE_MAX + 64];
        snprintf(why, sizeof why, "%s: %s", respite_status_name(err.status), err.message);
        json_object_set_new(record, "error", json_string(why));
    }
    respite_policy_free(policy);
    respite_problems_free(problems);
    return record;
}

/* CLI_EXIT_OK (valid), _FAILED (invalid) or _USAGE (unreadable, or the core failed). */
static int exit_status_of(const json_t *record)
{
    const char *result = json_string_value(json_object_get(record, "result"));
    return strcmp(result, "valid") == 0 ? CLI_EXIT_OK : strcmp(result, "invalid") == 0 ? CLI_EXIT_FAILED : CLI_EXIT_USAGE;
}

/* ----------------------------------------------------------------- text */

static json_int_t field(const json_t *policy, const char *name)
{
    return json_integer_value(json_object_get(policy, name));
}

static void print_valid(const char *path, const json_t *policy)
{
    size_t handlers = json_array_size(json_object_get(policy, "error_handlers"));
    printf("%s: valid: \"%s\", capacity %lld, %zu handler%s", path,
           json_string_value(json_object_get(policy, "name")), (long long)field(policy, "maximum_capacity"), handlers,
           handlers == 1 ? "" : "s");
    if (field(policy, "retry_times") > 0)
        printf(", retry_times %lld", (long long)field(policy, "retry_times"));
    if (field(policy, "event_ttl") > 0)
        printf(", event_ttl %llds", (long long)field(policy, "event_ttl"));
    if (json_object_get(policy, "prefetch_count"))
        printf(", prefetch_count %lld", (long long)field(policy, "prefetch_count"));
    printf("\n");
}

static void print_problems(const char *path, const json_t *problems)
{
    size_t count = json_array_size(problems);
    printf("%s: invalid: %zu problem%s\n", path, count, count == 1 ? "" : "s");
    for (size_t i = 0; i < count; i++) {
        const json_t *p = json_array_get(problems, i);
        const char *pointer = json_string_value(json_object_get(p, "pointer"));
        const char *message = json_string_value(json_object_get(p, "message"));
        if (json_is_integer(json_object_get(p, "line")))
            printf("  %s:%lld:%lld: %s\n", path, (long long)field(p, "line"), (long long)field(p, "column"), message);
        else
            printf("  %s: %s: %s\n", path, *pointer ? pointer : "(document)", message);
    }
}

static void print_text(const json_t *record)
{
    const char *path = json_string_value(json_object_get(record, "file"));
    const char *result = json_string_value(json_object_get(record, "result"));
    const char *error = json_string_value(json_object_get(record, "error"));
    if (strcmp(result, "valid") == 0)
        print_valid(path, json_object_get(record, "policy"));
    else if (strcmp(result, "invalid") == 0)
        print_problems(path, json_object_get(record, "problems"));
    else if (strcmp(result, "unreadable") == 0)
        fprintf(stderr, "respite check-policy: cannot read %s: %s\n", path, error);
    else
        fprintf(stderr, "respite check-policy: %s: %s\n", path, error);
}

/* ----------------------------------------------------------------- main */

int cmd_check_policy(int argc, char **argv)
{
    const char **files = calloc((size_t)argc, sizeof *files);
    int count = 0, options_end = 0, as_json = 0;
    for (int i = 1; i < argc; i++) {
        if (!options_end && cli_is_help(argv[i])) {
            free(files);
            print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (!options_end && strcmp(argv[i], "--") == 0) {
            options_end = 1;
        } else if (!options_end && strcmp(argv[i], "--json") == 0) {
            as_json = 1;
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
    json_t *records = json_array();
    for (int i = 0; i < count; i++) {
        json_t *record = check_one(files[i]);
        int result = exit_status_of(record);
        if (result == CLI_EXIT_FAILED)
            invalid++;
        if (result == CLI_EXIT_USAGE)
            unchecked++;
        if (result > worst)
            worst = result;
        if (!as_json)
            print_text(record);
        json_array_append_new(records, record);
    }
    if (as_json) {
        json_t *doc = json_pack("{s:o, s:i, s:i, s:i}", "files", records, "valid", count - invalid - unchecked,
                                "invalid", invalid, "not_checked", unchecked);
        if (!doc || json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            worst = CLI_EXIT_USAGE;
        printf("\n");
        json_decref(doc);
    } else {
        json_decref(records);
        if (count > 1 && unchecked)
            printf("%d files: %d valid, %d invalid, %d not checked\n", count, count - invalid - unchecked, invalid,
                   unchecked);
        else if (count > 1)
            printf("%d files: %d valid, %d invalid\n", count, count - invalid, invalid);
    }
    free(files);
    return worst;
}

/* respite-conformance-c SCENARIOS_DIR [FILE...]
 *
 * Runs every scenario file under SCENARIOS_DIR (or only the FILEs, paths
 * relative to it) in sorted order and prints one JSON line per scenario:
 *   {"id": ..., "steps": [observation, ...]}   or   {"id": ..., "error": "..."}
 * Exit status 0 when every file was read, 2 on a usage or I/O error. */
#include "runner.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static json_t *run_scenario(json_t *scenario)
{
    json_t *result = json_object();
    json_object_set(result, "id", json_object_get(scenario, "id"));
    const char *name = json_string_value(json_object_get(scenario, "component"));
    const component *c = component_named(name);
    json_t *steps = json_object_get(scenario, "steps");
    if (!c || !json_is_array(steps)) {
        json_object_set_new(result, "error", json_string(c ? "no steps" : "unknown component"));
        return result;
    }
    json_t *failure = NULL;
    void *state = c->open(scenario, &failure);
    if (!state) {
        json_object_set_new(result, "error", failure ? failure : json_string("could not open the component"));
        return result;
    }
    json_t *observed = json_array();
    double now = 0.0;
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step) {
        json_array_append_new(observed, run_step(c, state, step, &now, NULL));
    }
    c->close(state);
    json_object_set_new(result, "steps", observed);
    return result;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct path_list {
    char **items;
    size_t count, capacity;
} path_list;

static void add_path(path_list *list, const char *path)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 64;
        list->items = realloc(list->items, list->capacity * sizeof *list->items);
        if (!list->items) {
            perror("realloc");
            exit(2);
        }
    }
    list->items[list->count++] = strdup(path);
}

/* Collects every *.json under dir/relative, as paths relative to dir. */
static void collect(const char *dir, const char *relative, path_list *list)
{
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", dir, relative);
    DIR *d = opendir(full);
    if (!d)
        return;
    struct dirent *entry;
    while ((entry = readdir(d))) {
        if (entry->d_name[0] == '.')
            continue;
        char child[4096], child_full[8192];
        snprintf(child, sizeof child, "%s%s%s", relative, *relative ? "/" : "", entry->d_name);
        snprintf(child_full, sizeof child_full, "%s/%s", dir, child);
        struct stat st;
        if (stat(child_full, &st) != 0)
            continue;
        size_t n = strlen(child);
        if (S_ISDIR(st.st_mode))
            collect(dir, child, list);
        else if (n > 5 && strcmp(child + n - 5, ".json") == 0)
            add_path(list, child);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCENARIOS_DIR [FILE...]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    path_list list = {0};
    if (argc > 2) {
        for (int i = 2; i < argc; i++)
            add_path(&list, argv[i]);
    } else {
        collect(dir, "", &list);
        qsort(list.items, list.count, sizeof *list.items, compare_paths);
    }
    int status = 0;
    for (size_t i = 0; i < list.count; i++) {
        char full[8192];
        snprintf(full, sizeof full, "%s/%s", dir, list.items[i]);
        json_error_t parse_error;
        json_t *scenario = json_load_file(full, JSON_REJECT_DUPLICATES, &parse_error);
        json_t *result;
        if (!scenario) {
            result = json_pack("{s:s,s:s}", "file", list.items[i], "error", parse_error.text);
            status = 2;
        } else {
            result = run_scenario(scenario);
        }
        char *line = json_dumps(result, JSON_COMPACT | JSON_REAL_PRECISION(17));
        printf("%s\n", line);
        fflush(stdout);
        free(line);
        json_decref(result);
        json_decref(scenario);
        free(list.items[i]);
    }
    free(list.items);
    return status;
}

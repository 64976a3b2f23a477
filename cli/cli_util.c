/* Helpers shared by the subcommands: errors, files, numbers, options. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_usage_error(const char *subcommand, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "respite %s: ", subcommand);
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n");
    va_end(args);
    return CLI_EXIT_USAGE;
}

int cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

char *cli_read_file(const char *path, size_t max, size_t *size)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    size_t capacity = 4096, length = 0;
    char *data = malloc(capacity);
    while (data && length < max) {
        size_t want = capacity - length - 1;
        if (want > max - length)
            want = max - length;
        length += fread(data + length, 1, want, f);
        if (ferror(f)) {
            int saved = errno ? errno : EIO;
            free(data);
            data = NULL;
            errno = saved;
            break;
        }
        if (feof(f))
            break;
        if (length + 1 == capacity) {
            char *bigger = realloc(data, capacity * 2);
            if (!bigger) {
                free(data);
                data = NULL;
                errno = ENOMEM;
                break;
            }
            data = bigger;
            capacity *= 2;
        }
    }
    int saved = errno;
    if (f != stdin)
        fclose(f);
    errno = saved;
    if (!data)
        return NULL;
    data[length] = '\0';
    *size = length;
    return data;
}

char *cli_format_seconds(double seconds, char *buf, size_t size)
{
    if (isinf(seconds))
        snprintf(buf, size, "forever");
    else if (seconds < 0.0995)
        snprintf(buf, size, "%.0fms", seconds * 1000.0);
    else if (seconds < 9.995)
        snprintf(buf, size, "%.2fs", seconds);
    else if (seconds < 99.95)
        snprintf(buf, size, "%.1fs", seconds);
    else if (seconds < 3600.0)
        snprintf(buf, size, "%dm%02ds", (int)(seconds / 60.0), (int)fmod(seconds, 60.0));
    else
        snprintf(buf, size, "%.1fh", seconds / 3600.0);
    return buf;
}

int cli_is_tty(FILE *stream)
{
    return isatty(fileno(stream));
}

int cli_parse_option(int argc, char **argv, int i, int bare_is_true(const char *name), cli_option *out,
                     const char *subcommand)
{
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return 0;
    const char *name = arg + 2;
    const char *equals = strchr(name, '=');
    size_t length = equals ? (size_t)(equals - name) : strlen(name);
    if (length >= sizeof out->name) {
        cli_usage_error(subcommand, "option %.40s... is too long to be a setting", arg);
        return -1;
    }
    for (size_t k = 0; k < length; k++)
        out->name[k] = name[k] == '-' ? '_' : name[k];
    out->name[length] = '\0';
    if (equals) {
        out->value = equals + 1;
        return 1;
    }
    int is_boolean = bare_is_true && bare_is_true(out->name);
    if (i + 1 < argc && !(is_boolean && strncmp(argv[i + 1], "--", 2) == 0)) {
        out->value = argv[i + 1];
        return 2;
    }
    if (is_boolean) {
        out->value = "true";
        return 1;
    }
    cli_usage_error(subcommand, "option %s needs a value", arg);
    return -1;
}

/* "failures_to_enter_recovery" -> "failures-to-enter-recovery". */
static void dashed(const char *name, char *buf, size_t size)
{
    size_t k = 0;
    for (; name[k] && k + 1 < size; k++)
        buf[k] = name[k] == '_' ? '-' : name[k];
    buf[k] = '\0';
}

/* The placeholder of a setting's value in help: numbers by their unit (a
 * number setting is seconds, a factor or a fraction; the name says which). */
static const char *metavar(const respite_setting_info *row)
{
    size_t n = strlen(row->name);
    switch (row->type) {
    case RESPITE_SETTING_INTEGER: return "N";
    case RESPITE_SETTING_NUMBER:
        if (n >= 8 && strcmp(row->name + n - 8, "_seconds") == 0)
            return "SECONDS";
        if (n >= 10 && strcmp(row->name + n - 10, "multiplier") == 0)
            return "FACTOR";
        return strcmp(row->name, "jitter") == 0 ? "FRACTION" : "NUMBER";
    case RESPITE_SETTING_BOOLEAN: return "[true|false]";
    case RESPITE_SETTING_CHOICE: return "WORD";
    case RESPITE_SETTING_LIST: return "LIST";
    default: return "TEXT";
    }
}

/* The current value of a setting in `settings`, as text for help. */
static void default_text(const respite_settings *settings, const respite_setting_info *row, char *buf,
                         size_t size)
{
    if (row->type == RESPITE_SETTING_CHOICE || row->type == RESPITE_SETTING_STRING ||
        row->type == RESPITE_SETTING_LIST) {
        const char *text = respite_settings_get_text(settings, row->name, NULL);
        if (!text || !*text)
            snprintf(buf, size, "none");
        else if (strcmp(text, "\n") == 0)
            snprintf(buf, size, "newline");
        else
            snprintf(buf, size, "%s", text);
        return;
    }
    double value = respite_settings_get_number(settings, row->name, NULL);
    if (row->type == RESPITE_SETTING_BOOLEAN)
        snprintf(buf, size, "%s", value != 0 ? "true" : "false");
    else
        snprintf(buf, size, "%g", value);
}

void cli_print_settings_help(FILE *out, const char *component, const respite_settings *defaults,
                             const char *const *shadowing, int n)
{
    for (int i = 0; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        if (strcmp(row->component, component) != 0)
            continue;
        int shadowed = 0;
        for (int s = 0; s < n && !shadowed; s++)
            shadowed = respite_setting_find(shadowing[s], row->name) != NULL;
        if (shadowed)
            continue;
        char option[96], value[96];
        dashed(row->name, option, sizeof option);
        default_text(defaults, row, value, sizeof value);
        char left[160];
        snprintf(left, sizeof left, "--%s %s", option, metavar(row));
        fprintf(out, "  %-44s %s\n  %-44s (%s; default %s)\n", left, row->doc, "", row->accepted, value);
    }
}

/* respite demo: runs the program respite-demo (demo_main.c), which holds
 * the demo and its fault-server endpoints, so that respite itself does not
 * link libmicrohttpd. It is found next to this program (the build tree) or
 * where the install puts it (RESPITE_DEMO_FROM_BIN, relative to bin). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RESPITE_DEMO_FROM_BIN
#define RESPITE_DEMO_FROM_BIN "../libexec/respite/respite-demo"
#endif

/* The directory of the running program into dir (with its '/'); 0 or -1. */
static int own_directory(char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    slash[1] = '\0';
    return 0;
}

int cmd_demo(int argc, char **argv)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    if (own_directory(dir, sizeof dir) != 0)
        return cli_usage_error("demo", "cannot find this program's directory (/proc/self/exe): %s", strerror(errno));
    const char *const candidates[] = {"respite-demo", RESPITE_DEMO_FROM_BIN};
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args)
        return cli_usage_error("demo", "out of memory");
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; c++) {
        snprintf(path, sizeof path, "%s%s", dir, candidates[c]);
        if (access(path, X_OK) != 0)
            continue;
        args[0] = path;
        fflush(NULL);
        execv(path, args);
        free(args);
        return cli_usage_error("demo", "cannot run %s: %s", path, strerror(errno));
    }
    free(args);
    return cli_usage_error("demo", "the demo's program respite-demo is missing (looked for %srespite-demo and %s%s; "
                                   "it is built and installed with respite)", dir, dir, RESPITE_DEMO_FROM_BIN);
}

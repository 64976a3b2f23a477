/* demo, send and deliver for a build without the HTTP library: say so. */
#include "cli.h"

static int not_built(const char *name)
{
    fprintf(stderr, "respite %s: this respite was built without the HTTP library (libcurl) and the fault "
                    "server (libmicrohttpd); install them (bash scripts/setup.sh) and rebuild\n", name);
    return CLI_EXIT_USAGE;
}

int cmd_demo(int argc, char **argv)
{
    (void)argc;
    return not_built(argv[0]);
}

int cmd_send(int argc, char **argv)
{
    (void)argc;
    return not_built(argv[0]);
}

int cmd_deliver(int argc, char **argv)
{
    (void)argc;
    return not_built(argv[0]);
}

/* respite-demo - the part of `respite demo` that serves its endpoints with
 * the fault server (libmicrohttpd). A program of its own so that the
 * respite command links libmicrohttpd not at all: `respite demo` runs
 * this (demo_exec.c) with its arguments. */
#include "cli.h"

int main(int argc, char **argv)
{
    return cmd_demo(argc, argv);
}

/*
 * respite/version.h - the version of the headers in use (macros) and of the
 * library linked (respite_version()). They equal project(VERSION) in the
 * top-level CMakeLists.txt (configuring fails otherwise), which also gives
 * the libraries' VERSION, respiteConfigVersion.cmake and respite.pc.
 */
#ifndef RESPITE_VERSION_H
#define RESPITE_VERSION_H

#include "respite/common.h"

#define RESPITE_VERSION_MAJOR 0
#define RESPITE_VERSION_MINOR 1
#define RESPITE_VERSION_PATCH 0

#define RESPITE_VERSION_STRINGIFY_(x) #x
#define RESPITE_VERSION_STRINGIFY(x) RESPITE_VERSION_STRINGIFY_(x)
/* "MAJOR.MINOR.PATCH" */
#define RESPITE_VERSION_STRING                        \
    RESPITE_VERSION_STRINGIFY(RESPITE_VERSION_MAJOR) "." \
    RESPITE_VERSION_STRINGIFY(RESPITE_VERSION_MINOR) "." \
    RESPITE_VERSION_STRINGIFY(RESPITE_VERSION_PATCH)
/* One integer to compare with: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define RESPITE_VERSION_NUMBER \
    (RESPITE_VERSION_MAJOR * 10000 + RESPITE_VERSION_MINOR * 100 + RESPITE_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked, "MAJOR.MINOR.PATCH" (static storage).
 * It may differ from RESPITE_VERSION_STRING when a program built against
 * older headers runs with a newer shared library. */
RESPITE_API const char *respite_version(void);

#ifdef __cplusplus
}
#endif

#endif

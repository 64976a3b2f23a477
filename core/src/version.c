/* The version of the library itself (respite/version.h has the headers'). */
#include "respite/version.h"

const char *respite_version(void)
{
    return RESPITE_VERSION_STRING;
}

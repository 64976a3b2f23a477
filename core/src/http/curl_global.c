/* curl_global_init is not thread-safe and must run once before any handle
 * is made: pthread_once makes the first client or sender do it. */
#include "http_internal.h"

#include <pthread.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_FAILED_INIT;

static void init_curl(void)
{
    init_result = curl_global_init(CURL_GLOBAL_ALL);
}

int respite_http_global_init(respite_error *err)
{
    pthread_once(&init_once, init_curl);
    if (init_result != CURLE_OK)
        return respite_fail(err, RESPITE_E_INTERNAL, "libcurl could not be initialised: %s",
                            curl_easy_strerror(init_result));
    return RESPITE_OK;
}

/* libFuzzer target: any bytes given to the policy parser must give a policy
 * or invalid_policy with at least one problem, never a crash or a leak; a
 * valid policy must survive a round trip through canonical JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    if (!problems)
        return 0;
    respite_policy *policy = respite_policy_from_json_n((const char *)data, size, problems, &err);
    if (!policy) {
        if (err.status != RESPITE_E_INVALID_POLICY || respite_problems_count(problems) < 1)
            abort();
        for (int i = 0; i < respite_problems_count(problems); i++)
            if (!respite_problems_pointer(problems, i) || !respite_problems_message(problems, i))
                abort();
    } else {
        char *text = respite_policy_to_json(policy, &err);
        if (!text)
            abort();
        respite_policy *again = respite_policy_from_json(text, NULL, &err);
        char *text2 = again ? respite_policy_to_json(again, &err) : NULL;
        if (!text2 || strcmp(text, text2) != 0)
            abort();
        for (int status = 400; status <= 599; status++)
            if (respite_policy_strategy_for(policy, 0, status, NULL) !=
                respite_policy_strategy_for(again, 0, status, NULL))
                abort();
        respite_free_string(text);
        respite_free_string(text2);
        respite_policy_free(again);
        respite_policy_free(policy);
    }
    respite_problems_free(problems);
    return 0;
}

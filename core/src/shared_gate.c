/* Gates shared by a host's processes: the file, its slots and the
 * process-local attachments (docs/spec.md section 9). */
#include "internal.h"

int respite_shared_gate_capacity(void)
{
    return RESPITE_SHARED_GATE_SLOTS;
}

int respite_shared_gates_read(const char *path, double now, respite_shared_gate_info *out, int capacity, int *count,
                              respite_error *err)
{
    (void)now;
    (void)out;
    (void)capacity;
    if (count)
        *count = 0;
    return respite_fail(err, RESPITE_E_INTERNAL, "shared gate file %s: shared gates are not built yet",
                        path ? path : "(null)");
}

/* A sender's figures in a metrics snapshot (docs/spec.md section 12, M5):
 * here because the sender is the HTTP module's; the samples are made by the
 * core (respite_metrics_add_sender_stats). */
#include "respite.h"

int respite_metrics_add_sender(respite_metrics *metrics, respite_sender *sender, respite_error *err)
{
    respite_sender_stats stats;
    if (!metrics || !sender)
        return respite_metrics_add_sender_stats(metrics, NULL, NULL, 0, err);
    int rc = respite_sender_stats_get(sender, &stats, err);
    if (rc != RESPITE_OK)
        return rc;
    return respite_metrics_add_sender_stats(metrics, respite_sender_name(sender), &stats, respite_now(), err);
}

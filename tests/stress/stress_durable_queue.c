/* stress_queue.c on a durable queue (section 10): producers, a consumer and
 * a reader of live snapshots share one handle on an SQLite file. */
#define STRESS_QUEUE_ON_FILE 1
#include "stress_queue.c"

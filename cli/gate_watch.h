/* Watches the gate a conformance component makes, so `respite simulate` can
 * show the gate's state after every step without driving it: the runner's
 * components keep their handles private, and asking them ("state") would
 * move the gate's clock. The link wraps respite_gate_new / respite_gate_free
 * (-Wl,--wrap, see cli/CMakeLists.txt) to note the newest live gate; reading
 * its statistics has no effect on it. */
#ifndef RESPITE_CLI_GATE_WATCH_H
#define RESPITE_CLI_GATE_WATCH_H

#include "respite.h"

/* Starts noting gates made from now on (and forgets any noted before). */
void gate_watch_start(void);
/* Stops noting. */
void gate_watch_stop(void);
/* The newest gate made since gate_watch_start and not yet freed, or NULL. */
respite_gate *gate_watch_current(void);

#endif

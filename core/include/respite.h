/*
 * respite.h - the whole public C API of respite (umbrella header).
 *
 * respite decides when a client may call a cloud service, when to retry,
 * and what happens to work that could not be delivered. docs/spec.md is the
 * normative behaviour; each header documents its functions where declared.
 */
#ifndef RESPITE_H
#define RESPITE_H

#include "respite/common.h"
#include "respite/version.h"
#include "respite/gate.h"
#include "respite/fast_path.h"
#include "respite/shared_gate.h"
#include "respite/backoff.h"
#include "respite/policy.h"
#include "respite/queue.h"
#include "respite/engine.h"
#include "respite/http.h"
#include "respite/fleet.h"
#include "respite/metrics.h"

#endif /* RESPITE_H */

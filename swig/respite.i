/*
 * respite.i - the one SWIG interface shared by every language.
 *
 * The raw module mirrors the C names (respite_gate_new, ...). Each language's
 * idiomatic package is written by hand on top of it and owns lifetimes:
 * handles here are plain opaque pointers that nothing frees implicitly; the
 * idiomatic classes call respite_X_free in close() and their finalizers, and
 * pass null afterwards, which the core answers with a "closed" error.
 *
 * Errors: every fallible C function ends with `respite_error *err`. That
 * argument is hidden here; when the core fills it, each language's argout
 * typemap (in <lang>.i) builds its exception from the struct's fields
 * (boundary rule 1). Typemaps every language shares are here; per-language
 * files (python.i, java.i, ...) include this one and add only their own
 * typemaps.
 */

%{
#include "respite.h"
#include <string.h>
%}

%include "exception.i"
%include "stdint.i"

/* The hidden error argument: zeroed before the call; each <lang>.i's argout
 * typemap raises the language's exception from its fields after. */
%typemap(in, numinputs=0) respite_error *err (respite_error temp) {
    memset(&temp, 0, sizeof temp);
    $1 = &temp;
}

/* A policy's problems, hidden with the error: made for the call, read by
 * each <lang>.i's argout typemap for the pair onto the exception (and freed
 * there, as a language may skip freearg when it raises), freed otherwise. */
%typemap(in, numinputs=0) (respite_problems *problems, respite_error *err) (respite_error temp) {
    memset(&temp, 0, sizeof temp);
    $1 = respite_problems_new(NULL); /* NULL (no memory): the error still comes, without its list */
    $2 = &temp;
}
%typemap(freearg) (respite_problems *problems, respite_error *err) "respite_problems_free($1);"
%ignore respite_problems_clear;

/* C-only parts: callbacks cannot cross into every language (events are
 * polled with respite_X_next_event instead), and the retry loop that takes
 * a callback is written again in each idiomatic layer. */
%ignore respite_gate_set_event_callback;
%ignore respite_retry_run;
%ignore respite_retry_run_with_hook;
%ignore respite_before_wait_fn;
%ignore respite_error_clear;
%ignore respite_event_callback;
%ignore respite_attempt_fn;
%ignore RESPITE_STATUS_MAP;
%ignore RESPITE_HANDLE_MAP;
/* Called by each language's text typemap (E15), not by the language. */
%ignore respite_text_check;
/* A C array of payloads (Q10): no typemap yet; bindings enqueue one by one. */
%ignore respite_queue_enqueue_many;

/* Structs the bindings read; their strings are read-only. */
%immutable respite_setting_info::component;
%immutable respite_setting_info::name;
%immutable respite_setting_info::default_text;
%immutable respite_setting_info::choices;
%immutable respite_setting_info::accepted;
%immutable respite_setting_info::doc;
%immutable respite_event::detail;
/* The fleet gate (respite/fleet.h, library respite_fleet): the bindings make
 * one, call through its local gate and read its view; the operator's read
 * of another gate's fleet (respite_fleet_read) is the command's. */
%immutable respite_fleet_view::probe_host;
%immutable respite_fleet_view::host_id;
%ignore respite_fleet_read;
%ignore respite_fleet_info;
%ignore respite_fleet_host;
%immutable respite_metric_family::name;
%immutable respite_metric_family::type;
%immutable respite_metric_family::unit;
%immutable respite_metric_family::labels;
%immutable respite_metric_family::help;
%immutable respite_metric_sample::family;
%immutable respite_metric_sample::name;
%immutable respite_metric_sample::type;
%immutable respite_metric_sample::unit;
%immutable respite_metric_sample::help;
%immutable respite_metric_sample::handle_label;
%immutable respite_metric_sample::handle;
%immutable respite_metric_sample::label;
%immutable respite_metric_sample::label_value;
/* Metrics: C-only adders (a shared gate file's info, a sender's stats). */
%ignore respite_metrics_add_shared_gate;
%ignore respite_metrics_add_sender_stats;
/* Read through respite_metrics_content_type (a string macro is no constant in every language). */
%ignore RESPITE_METRICS_CONTENT_TYPE;

/* Functions that fill a caller's text buffer (char *buf, size_t size)
 * return the text instead: each <lang>.i's argout typemap makes it. */
%typemap(in, numinputs=0) (char *buf, size_t size) (char temp[1024]) {
    temp[0] = '\0';
    $1 = temp;
    $2 = sizeof temp;
}
/* Text the core allocates for the caller (%newobject below): freed once copied. */
%typemap(newfree) char * "respite_free_string($1);";
/* Per-language binary payload typemaps go in <lang>.i before this include
 * where the language supports them. */

%include "respite/common.h"
%include "respite/gate.h"
%include "respite/fast_path.h"
%include "respite/backoff.h"
%newobject respite_policy_to_json;
%include "respite/policy.h"
%include "respite/queue.h"
%include "respite/engine.h"
%include "respite/http.h"
%include "respite/fleet.h"
%newobject respite_metrics_render;
%include "respite/metrics.h"

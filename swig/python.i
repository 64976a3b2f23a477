/*
 * python.i - the Python raw module (respite.respite_swig). Only typemaps
 * live here; everything else is in respite.i. Built with `swig -python
 * -threads` so the GIL is released while the core runs.
 */
%module(package="respite") respite_swig

/* Errors cross as respite_error's fields: ext/errors.c raises the class
 * for the status with the message, setting and retry_after (a refusal from
 * admit included), so no binding code reads a message's text. */
#define RESPITE_SWIG_STRUCTURED_ERRORS
%{
#include "respite_py.h"
%}
%typemap(argout) respite_error *err {
    if ($1->status != RESPITE_OK) {
        respite_py_raise($1);
        Py_XDECREF($result);
        $result = NULL;
        SWIG_fail;
    }
}

/* Functions that fill a caller's text buffer (char *buf, size_t size)
 * return the text as a str instead. */
%typemap(in, numinputs=0) (char *buf, size_t size) (char temp[1024]) {
    temp[0] = '\0';
    $1 = temp;
    $2 = sizeof temp;
}
%typemap(argout) (char *buf, size_t size) {
    Py_XDECREF($result);
    $result = PyUnicode_FromString($1);
}

/* Binary payloads (const char *data, size_t size) from bytes-like objects. */
%typemap(in) (const char *data, size_t size) (Py_buffer view, int have_view = 0) {
    if (PyObject_GetBuffer($input, &view, PyBUF_SIMPLE) != 0) {
        SWIG_exception_fail(SWIG_TypeError, "in method '$symname', payload must be bytes-like");
    }
    have_view = 1;
    $1 = (char *)view.buf;
    $2 = (size_t)view.len;
}
%typemap(freearg) (const char *data, size_t size) {
    if (have_view$argnum) PyBuffer_Release(&view$argnum);
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) (const char *data, size_t size) {
    $1 = PyObject_CheckBuffer($input) ? 1 : 0;
}

/* An event's payload comes out as bytes of its exact size (binary-safe). */
%typemap(out) const char *respite_batch_event_text {
    if ($1) {
        $result = PyBytes_FromStringAndSize($1, (Py_ssize_t)respite_batch_event_size(arg1, arg2, NULL));
    } else {
        Py_INCREF(Py_None);
        $result = Py_None;
    }
}

/* A response's body comes out as bytes of its exact size (binary-safe). */
%typemap(out) const char *respite_response_body {
    if ($1) {
        $result = PyBytes_FromStringAndSize($1, (Py_ssize_t)respite_response_body_size(arg1));
    } else {
        Py_INCREF(Py_None);
        $result = Py_None;
    }
}

/* The GIL is released around every core call (-threads) except these: they
 * take tens of nanoseconds and never block (the gate's closed-state path
 * takes no lock), so releasing and re-taking the GIL would cost more than
 * the call itself. Calls that can take time (parsing a policy, queue and
 * engine operations) release it. */
%nothread respite_now;
%nothread respite_gate_admit;
%nothread respite_gate_report;
%nothread respite_gate_admit_now;
%nothread respite_gate_report_now;
%nothread respite_gate_retry_after;
%nothread respite_gate_check;
%nothread respite_gate_events_pending;
%nothread respite_gate_name;
%nothread respite_gate_get_state;
%nothread respite_gate_next_event;
%nothread respite_gate_stats_get;
%nothread respite_gate_state_name;
%nothread respite_refusal_message;
%nothread respite_status_name;
%nothread respite_strerror;
%nothread respite_status_count;
%nothread respite_outcome_name;
%nothread respite_outcome_counts;
%nothread respite_classify;
%nothread respite_event_type_name;
%nothread respite_event_is_warning;
%nothread respite_event_message;
%nothread respite_backoff_start;
%nothread respite_backoff_next;
%nothread respite_backoff_delay;
%nothread respite_backoff_retries_on;
%nothread respite_backoff_max_attempts;
%nothread respite_retry_decide;
%nothread respite_retry_gave_up;
%nothread respite_policy_name;
%nothread respite_policy_maximum_capacity;
%nothread respite_policy_retry_times;
%nothread respite_policy_event_ttl;
%nothread respite_policy_prefetch_count;
%nothread respite_policy_handler_count;
%nothread respite_policy_handler_on;
%nothread respite_policy_handler_strategy;
%nothread respite_strategy_name;
%nothread respite_disposition_name;
%nothread respite_action_name;
/* Reading a finished response is a field read. Everything else of the HTTP
 * module (respite_client_request, respite_sender_flush / close / enqueue /
 * new / free, report_unusable) is NOT listed: those wait on the network or
 * on the sender's thread, so they run without the GIL. */
%nothread respite_response_status;
%nothread respite_response_body;
%nothread respite_response_free;
%nothread respite_response_outcome;
%nothread respite_response_body_size;
%nothread respite_response_header;
%nothread respite_response_error;
%nothread respite_response_retry_after;
%nothread respite_response_attempts;
%nothread respite_response_elapsed_seconds;

/* Gate.call's lean path is C (bindings/python/ext/gate_call.c, compiled
 * into this module): admit + call + report without Python frames. */
%init %{
    if (respite_py_gate_call_register(m) != 0)
        return -1;
%}

%include "respite.i"

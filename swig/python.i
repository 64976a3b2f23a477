/*
 * python.i - the Python raw module (respite.respite_swig). Only typemaps
 * live here; everything else is in respite.i. Built with `swig -python
 * -threads`; which calls release the GIL is said at the end.
 */
%module(package="respite") respite_swig

/* Errors cross as respite_error's fields: ext/errors.c raises the class
 * for the status with the message, setting and retry_after (a refusal from
 * admit included), so no binding code reads a message's text. */
%{
#include "errors.h"
%}
%typemap(argout) respite_error *err {
    if ($1->status != RESPITE_OK) {
        respite_py_raise($1);
        Py_XDECREF($result);
        $result = NULL;
        SWIG_fail;
    }
}
/* A policy's problems (respite.i) go on InvalidPolicyError.problems. */
%typemap(argout) (respite_problems *problems, respite_error *err) {
    if ($2->status != RESPITE_OK) {
        respite_py_raise_problems($2, $1);
        respite_problems_free($1);
        $1 = NULL;
        Py_XDECREF($result);
        $result = NULL;
        SWIG_fail;
    }
}

/* A text buffer (char *buf, size_t size; respite.i) comes back as a str. */
%typemap(argout) (char *buf, size_t size) {
    Py_XDECREF($result);
    $result = PyUnicode_FromString($1);
}

/* Binary payloads (const char *data, size_t size): a bytes-like object,
 * a str (its UTF-8) or None (no body). */
%typemap(in) (const char *data, size_t size) (Py_buffer view, int have_view = 0, Py_ssize_t size = 0) {
    if ($input == Py_None) {
        $1 = NULL;
    } else if (PyUnicode_Check($input)) {
        if (!($1 = (char *)PyUnicode_AsUTF8AndSize($input, &size)))
            SWIG_fail;
    } else if (PyObject_GetBuffer($input, &view, PyBUF_SIMPLE) == 0) {
        have_view = 1;
        $1 = (char *)view.buf;
        size = view.len;
    } else {
        SWIG_exception_fail(SWIG_TypeError, "in method '$symname', a payload is bytes-like or str");
    }
    $2 = (size_t)size;
}
%typemap(freearg) (const char *data, size_t size) {
    if (have_view$argnum) PyBuffer_Release(&view$argnum);
}
/* Text (str) crosses with its length: a NUL byte inside is refused by the
 * core (E15) instead of silently ending the text. */
%typemap(in) const char * (int res, char *buf = 0, size_t size = 0, int alloc = 0, respite_error text_err) {
    res = SWIG_AsCharPtrAndSize($input, &buf, &size, &alloc);
    if (!SWIG_IsOK(res))
        SWIG_exception_fail(SWIG_ArgError(res), "in method '$symname', argument $argnum of type '$type'");
    if (size > 0 && respite_text_check(buf, size - 1, "$1_name", &text_err) != RESPITE_OK) {
        respite_py_raise(&text_err);
        SWIG_fail;
    }
    $1 = buf;
}
%typemap(freearg) const char * {
    if (alloc$argnum == SWIG_NEWOBJ) free(buf$argnum);
}

/* A policy document too: with its length, a NUL inside is the core's syntax error. */
%apply (const char *data, size_t size) { (const char *json, size_t length) };

/* An event's payload and a response's body come out as bytes of their
 * exact size (binary-safe). */
%define %respite_bytes_out(FUNCTION, SIZE)
%typemap(out) const char *FUNCTION {
    $result = $1 ? PyBytes_FromStringAndSize($1, (Py_ssize_t)(SIZE)) : SWIG_Py_Void();
}
%enddef
%respite_bytes_out(respite_batch_event_text, respite_batch_event_size(arg1, arg2, NULL))
%respite_bytes_out(respite_response_body, respite_response_body_size(arg1))

/* The GIL is kept during core calls: most take nanoseconds (the gate's
 * closed-state path takes no lock), so releasing and re-taking it would
 * cost more than the call. It is released (-threads) only by the calls
 * below, which may wait: on big input, a queue's lock or condition, the
 * sender's thread, the network or the fleet gate's thread. */
%nothread;
%thread respite_policy_from_json;
%thread respite_policy_from_json_n;
%thread respite_policy_builder_build;
%thread respite_queue_free;
%thread respite_queue_enqueue;
%thread respite_queue_close;
%thread respite_queue_is_closed;
%thread respite_queue_pending;
%thread respite_queue_expire;
%thread respite_queue_take;
%thread respite_queue_wait;
%thread respite_queue_stats_get;
%thread respite_batch_free;
%thread respite_batch_settle;
%thread respite_batch_settle_all;
%thread respite_engine_free;
%thread respite_engine_next;
%thread respite_engine_take;
%thread respite_engine_settle;
%thread respite_engine_close;
%thread respite_engine_stats_get;
%thread respite_client_new;
%thread respite_client_free;
%thread respite_client_request;
%thread respite_client_request_with;
%thread respite_client_report_unusable;
%thread respite_sender_new;
%thread respite_sender_free;
%thread respite_sender_add_header;
%thread respite_sender_enqueue;
%thread respite_sender_flush;
%thread respite_sender_close;
%thread respite_sender_stats_get;
%thread respite_sender_next_event;
%thread respite_fleet_gate_free;

/* Gate.call's lean path and `with gate.attempt()` are C
 * (bindings/python/ext/gate_call.c and attempt.c, with gate_handle.c,
 * compiled into this module): admit + call + report without Python frames. */
%init %{
    if (respite_py_fast_register(m) != 0 || respite_py_gate_handle_register(m) != 0 ||
        respite_py_gate_call_register(m) != 0 || respite_py_attempt_register(m) != 0)
        return -1;
%}

%include "respite.i"

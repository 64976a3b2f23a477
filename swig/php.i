/*
 * php.i - the raw PHP extension `respite` (global functions respite_*,
 * plus the struct classes respite_decision, respite_event, ...). Built with
 * `swig -php7` (SWIG 4.5.1 generates PHP 8 code). Only PHP specifics live
 * here; everything else is respite.i. The idiomatic classes are the
 * Respite\ namespace in bindings/php/src.
 */
%module respite

/* Errors cross as the core's struct: the exception is built from its fields
 * by Respite\RespiteException::fromError(status, message, setting,
 * retry_after), so a raw call throws the same Respite\ class the idiomatic
 * layer documents. Without the Respite\ classes loaded: \Exception with the
 * core's message and its status as the code. */
#define RESPITE_SWIG_STRUCTURED_ERRORS
%{
#include "respite.h"

static void respite_php_throw(const respite_error *err)
{
    const char *message = err->message[0] ? err->message : respite_strerror(err->status);
    zval from_error, args[4], exception;
    ZVAL_STRING(&from_error, "Respite\\RespiteException::fromError");
    ZVAL_LONG(&args[0], err->status);
    ZVAL_STRING(&args[1], message);
    ZVAL_STRING(&args[2], err->setting);
    ZVAL_DOUBLE(&args[3], err->retry_after);
    ZVAL_UNDEF(&exception);
    if (call_user_function(NULL, NULL, &from_error, &exception, 4, args) == SUCCESS && Z_TYPE(exception) == IS_OBJECT)
        zend_throw_exception_object(&exception);
    else {
        zval_ptr_dtor(&exception);
        zend_clear_exception(); /* no Respite\ classes: the fallback below */
        zend_throw_exception(NULL, message, err->status);
    }
    zval_ptr_dtor(&from_error);
    zval_ptr_dtor(&args[1]);
    zval_ptr_dtor(&args[2]);
}
%}
%typemap(argout) respite_error *err {
    if ($1->status != 0) {
        respite_php_throw($1);
        SWIG_fail;
    }
}

/* Functions that fill a caller's text buffer (char *buf, size_t size)
 * return the text as a string instead. */
%typemap(in, numinputs=0) (char *buf, size_t size) (char temp[1024]) {
    temp[0] = '\0';
    $1 = temp;
    $2 = sizeof temp;
}
%typemap(argout) (char *buf, size_t size) {
    zval_ptr_dtor($result);
    ZVAL_STRING($result, $1);
}

/* Binary payloads: a PHP string is bytes already (NUL bytes included). */
%typemap(in) (const char *data, size_t size), (const char *json, size_t length) {
    if (Z_TYPE($input) != IS_STRING) {
        zend_type_error("in method '$symname', a payload must be a string");
        return;
    }
    $1 = Z_STRVAL($input);
    $2 = Z_STRLEN($input);
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) (const char *data, size_t size),
    (const char *json, size_t length) {
    $1 = Z_TYPE($input) == IS_STRING;
}

/* Text (a PHP string) crosses with its length: a NUL byte inside is
 * refused by the core (E15) instead of silently ending the text. */
%typemap(in) const char * (respite_error text_err) {
    if (Z_ISNULL($input)) {
        $1 = NULL;
    } else {
        convert_to_string(&$input);
        if (respite_text_check(Z_STRVAL($input), Z_STRLEN($input), "$1_name", &text_err) != RESPITE_OK) {
            respite_php_throw(&text_err);
            SWIG_fail;
        }
        $1 = Z_STRVAL($input);
    }
}

/* Text the core allocates for the caller: copied into a string, then freed. */
%typemap(newfree) char * "respite_free_string($1);";
%newobject respite_policy_to_json;

/* A batch event's payload or a response body as a PHP string of exactly
 * its size (the core's text accessors stop at the first NUL byte). */
%typemap(in, numinputs=0) (const char **bytes, int64_t *length) (const char *bytes_temp = NULL, int64_t length_temp = 0) {
    $1 = ($1_ltype)&bytes_temp;
    $2 = &length_temp;
}
%typemap(argout) (const char **bytes, int64_t *length) {
    if (*$1 != NULL) {
        zval_ptr_dtor($result);
        ZVAL_STRINGL($result, *$1, (size_t)*$2);
    }
}

%include "respite.i"

%inline %{
/* The payload of batch event `index`. Returns 0, or -1 with err filled. */
int respite_php_batch_event_bytes(const respite_batch *batch, int index, const char **bytes, int64_t *length,
                                  respite_error *err)
{
    *length = respite_batch_event_size(batch, index, err);
    *bytes = *length < 0 ? NULL : respite_batch_event_text(batch, index, err);
    return *bytes == NULL ? -1 : 0;
}

/* The response body ("" for NULL). */
void respite_php_response_body(const respite_response *response, const char **bytes, int64_t *length)
{
    *bytes = response != NULL ? respite_response_body(response) : "";
    *length = response != NULL ? respite_response_body_size(response) : 0;
}
%}

/* Gate::call's lean path: admit and the user's callable in C, with no PHP
 * frame of ours around the callable; the success report is a second call.
 * The permit goes back through a by-reference argument, written whether
 * the callable returned or threw, so PHP reports a Throwable (classifying
 * it is PHP's job) with the permit of its own call, nested calls included. */
%typemap(in) zval *callable %{
    $1 = &$input;
%}
%typemap(in, numinputs=0) zval *call_result %{
    $1 = return_value;
%}
%typemap(in, byref=1) int64_t *permit_out (int64_t permit_temp = 0) %{
    $1 = &permit_temp;
%}
%typemap(argout) int64_t *permit_out %{
    if (Z_ISREF($input))
        ZEND_TRY_ASSIGN_REF_LONG(&$input, permit_temp$argnum);
%}
%inline %{
/* Admits (respite_gate_admit_now: no clock read while closed) and calls
 * `callable` with no arguments; its value is the PHP function's value.
 * Refused: the callable is not called and err is the core's refusal. */
void respite_php_gate_call(respite_gate *gate, zval *callable, zval *call_result, int64_t *permit_out,
                           respite_error *err)
{
    int64_t permit = respite_gate_admit_now(gate, err);
    if (permit <= 0)
        return;
    *permit_out = permit;
    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    char *why = NULL;
    if (zend_fcall_info_init(callable, 0, &fci, &fcc, NULL, &why) == SUCCESS) {
        fci.retval = call_result;
        zend_call_function(&fci, &fcc);
    } else {
        /* PHP's callable type check normally stops this earlier */
        zend_type_error("Gate::call(): argument must be a valid callback, %s", why ? why : "not callable");
    }
    if (why)
        efree(why);
    if (Z_ISUNDEF_P(call_result))
        ZVAL_NULL(call_result);
}

/* Reports success for a permit of respite_php_gate_call; returns the
 * gate's pending events (respite_gate_events_pending), -1 with err. */
int respite_php_gate_call_done(respite_gate *gate, int64_t permit, respite_error *err)
{
    if (respite_gate_report_now(gate, permit, RESPITE_OUTCOME_SUCCESS, 0.0, err) != RESPITE_OK)
        return -1;
    return respite_gate_events_pending(gate);
}
%}

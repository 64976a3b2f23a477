/*
 * php.i - the raw PHP extension `respite` (global functions respite_*,
 * plus the struct classes respite_decision, respite_event, ...). Built with
 * `swig -php7`, which in SWIG 4.1 generates PHP 8 code. Only PHP specifics
 * live here; everything else is respite.i. The idiomatic classes are the
 * Respite\ namespace in bindings/php/src.
 */
%module respite

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

/* Text the core allocates for the caller: copied into a string, then freed. */
%typemap(newfree) char * "respite_free_string($1);";
%newobject respite_policy_to_json;

/* A batch event's payload as a PHP string of exactly event_size bytes
 * (respite_batch_event_text stops at the first NUL byte). */
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
/* PHP only: the payload of batch event `index`; the binding reads it as a
 * string. Returns 0, or -1 with err filled by the core. */
int respite_php_batch_event_bytes(const respite_batch *batch, int index, const char **bytes, int64_t *length,
                                  respite_error *err)
{
    int64_t size = respite_batch_event_size(batch, index, err);
    if (size < 0)
        return -1;
    const char *text = respite_batch_event_text(batch, index, err);
    if (text == NULL)
        return -1;
    *bytes = text;
    *length = size;
    return 0;
}
%}

/* Gate::call's lean path: admit, the user's callable and the success report
 * in C, with no PHP frame of ours around the callable. The permit of the
 * last call (its callable returned or threw) and the retry_after of the last
 * refusal are kept per thread for the PHP side, which reports failures
 * (classifying the Throwable is PHP's job) and words refusals through the
 * core. Nested calls are safe: each call stores its own permit after its
 * callable has returned. */
%typemap(in) zval *callable %{
    $1 = &$input;
%}
%typemap(in, numinputs=0) zval *call_result %{
    $1 = return_value;
%}
%{
ZEND_TLS int64_t respite_php_call_permit_;
ZEND_TLS double respite_php_call_retry_after_;
%}
%inline %{

/* Admits (respite_gate_admit_now) and calls `callable` with no arguments; its value
 * is the PHP function's value. Refused: the callable is not called and err
 * is the core's refusal (retry_after kept for respite_php_gate_call_retry_after). */
void respite_php_gate_call(respite_gate *gate, zval *callable, zval *call_result, respite_error *err)
{
    respite_php_call_permit_ = 0;
    /* admit_now reads no clock while the gate is closed (the common case) */
    int64_t permit = respite_gate_admit_now(gate, err);
    if (permit < 0)
        return;
    if (permit == 0) {
        double retry_after = respite_gate_retry_after(gate, respite_now(), NULL);
        respite_php_call_retry_after_ = retry_after;
        respite_refusal_error(retry_after, err);
        return;
    }
    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    char *why = NULL;
    if (zend_fcall_info_init(callable, 0, &fci, &fcc, NULL, &why) != SUCCESS) {
        /* not callable (PHP's type check normally stops this earlier) */
        respite_php_call_permit_ = permit;
        zend_type_error("Gate::call(): argument must be a valid callback, %s", why ? why : "not callable");
        if (why)
            efree(why);
        return;
    }
    if (why)
        efree(why);
    fci.retval = call_result;
    fci.param_count = 0;
    fci.params = NULL;
    if (zend_call_function(&fci, &fcc) != SUCCESS && Z_ISUNDEF_P(call_result))
        ZVAL_NULL(call_result);
    if (Z_ISUNDEF_P(call_result))
        ZVAL_NULL(call_result);
    respite_php_call_permit_ = permit;
}

/* Reports success for the last call's permit (no clock read while closed). */
void respite_php_gate_call_done(respite_gate *gate, respite_error *err)
{
    respite_gate_report_now(gate, respite_php_call_permit_, RESPITE_OUTCOME_SUCCESS, 0.0, err);
}

/* The permit of the last call whose callable ran (0: it was not called). */
int64_t respite_php_gate_call_permit(void)
{
    return respite_php_call_permit_;
}

/* The retry_after of the last refusal by respite_php_gate_call. */
double respite_php_gate_call_retry_after(void)
{
    return respite_php_call_retry_after_;
}
%}

/* HTTP (respite/http.h). The raw exception carries only "<status>: <message>",
 * so the two calls that can be refused by the gate keep the refusal's
 * retry_after per thread for the PHP side (respite_php_http_retry_after). */
%{
ZEND_TLS double respite_php_http_retry_after_;
%}
%inline %{

/* respite_client_request, keeping a refusal's retry_after. */
respite_response *respite_php_client_request(respite_client *client, const char *method, const char *url,
                                             const char *headers, const char *data, size_t size,
                                             respite_error *err)
{
    respite_response *response = respite_client_request(client, method, url, headers, data, size, err);
    if (err->status == RESPITE_E_TEMPORARILY_UNAVAILABLE)
        respite_php_http_retry_after_ = err->retry_after;
    return response;
}

/* respite_sender_flush, keeping a refusal's retry_after. */
int respite_php_sender_flush(respite_sender *sender, double timeout_seconds, respite_error *err)
{
    int rc = respite_sender_flush(sender, timeout_seconds, err);
    if (err->status == RESPITE_E_TEMPORARILY_UNAVAILABLE)
        respite_php_http_retry_after_ = err->retry_after;
    return rc;
}

/* The retry_after of the last refused request or flush on this thread. */
double respite_php_http_retry_after(void)
{
    return respite_php_http_retry_after_;
}

/* The response body as a PHP string of exactly body_size bytes
 * (respite_response_body stops at the first NUL byte for SWIG). */
void respite_php_response_body(const respite_response *response, const char **bytes, int64_t *length)
{
    *bytes = response != NULL ? respite_response_body(response) : "";
    *length = response != NULL ? respite_response_body_size(response) : 0;
}
%}

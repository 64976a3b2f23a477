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
%{
#include "respite.h"
#include "respite_php.h"
#include <limits.h>

/* A policy's problems as a list of Respite\Problem (empty without a list or the class). */
static void respite_php_problems(zval *list, const respite_problems *problems)
{
    if (!problems) {
        ZVAL_EMPTY_ARRAY(list);
        return;
    }
    array_init(list);
    zend_string *name = zend_string_init("Respite\\Problem", sizeof "Respite\\Problem" - 1, 0);
    zend_class_entry *problem = zend_lookup_class(name);
    zend_string_release(name);
    for (int i = 0; problem && i < respite_problems_count(problems); i++) {
        zval item, args[4];
        ZVAL_STRING(&args[0], respite_problems_pointer(problems, i));
        ZVAL_STRING(&args[1], respite_problems_message(problems, i));
        ZVAL_LONG(&args[2], respite_problems_line(problems, i));
        ZVAL_LONG(&args[3], respite_problems_column(problems, i));
        object_init_ex(&item, problem);
        zend_call_known_instance_method(problem->constructor, Z_OBJ(item), NULL, 4, args);
        add_next_index_zval(list, &item);
        zval_ptr_dtor(&args[0]);
        zval_ptr_dtor(&args[1]);
    }
}

static void respite_php_throw_problems(const respite_error *err, const respite_problems *problems)
{
    const char *message = err->message[0] ? err->message : respite_strerror(err->status);
    zval from_error, args[5], exception;
    ZVAL_STRING(&from_error, "Respite\\RespiteException::fromError");
    ZVAL_LONG(&args[0], err->status);
    ZVAL_STRING(&args[1], message);
    ZVAL_STRING(&args[2], err->setting);
    ZVAL_DOUBLE(&args[3], err->retry_after);
    respite_php_problems(&args[4], problems);
    ZVAL_UNDEF(&exception);
    if (call_user_function(NULL, NULL, &from_error, &exception, 5, args) == SUCCESS && Z_TYPE(exception) == IS_OBJECT)
        zend_throw_exception_object(&exception);
    else {
        zval_ptr_dtor(&exception);
        zend_clear_exception(); /* no Respite\ classes: the fallback below */
        zend_throw_exception(NULL, message, err->status);
    }
    zval_ptr_dtor(&from_error);
    zval_ptr_dtor(&args[1]);
    zval_ptr_dtor(&args[2]);
    zval_ptr_dtor(&args[4]);
}

void respite_php_throw(const respite_error *err)
{
    respite_php_throw_problems(err, NULL);
}
%}
%typemap(argout) respite_error *err {
    if ($1->status != 0) {
        respite_php_throw($1);
        SWIG_fail;
    }
}
/* A policy's problems (respite.i) go on InvalidPolicyException::getProblems(). */
%typemap(argout) (respite_problems *problems, respite_error *err) {
    if ($2->status != 0) {
        respite_php_throw_problems($2, $1);
        respite_problems_free($1);
        $1 = NULL;
        SWIG_fail;
    }
}

/* A text buffer (char *buf, size_t size; respite.i) comes back as a string. */
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

/* A C int argument (a status, an outcome, a flag) given an integer beyond
 * C's int (PHP_INT_MAX) is a ValueError, never wrapped (it became -1). */
%typemap(in) int {
    zend_long respite_long = zval_get_long(&$input);
    if (respite_long < INT_MIN || respite_long > INT_MAX) {
        zend_value_error("in method '$symname', argument $argnum of type 'int': " ZEND_LONG_FMT " does not fit",
                         respite_long);
        SWIG_fail;
    }
    $1 = (int)respite_long;
}


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

/* Gate::call's lean path is hand-written C beside this wrapper
 * (bindings/php/ext/gate_call.c); it reads a gate's handle with this. */
%{
int respite_php_gate_ptr(zval *value, respite_gate **gate)
{
    /* SWIG_ConvertPtr compares type names (strcmp); an object of exactly the
     * class SWIG made for respite_gate * holds one as it is. */
    if (Z_TYPE_P(value) == IS_OBJECT && (void *)Z_OBJCE_P(value) == SWIGTYPE_p_respite_gate->clientdata) {
        *gate = (respite_gate *)swig_php_fetch_object(Z_OBJ_P(value))->ptr;
        return 0;
    }
    void *ptr = NULL;
    if (SWIG_ConvertPtr(value, &ptr, SWIGTYPE_p_respite_gate, 0) < 0) {
        zend_type_error("Expected a gate handle (SWIGTYPE_p_respite_gate)");
        return -1;
    }
    *gate = (respite_gate *)ptr;
    return 0;
}
%}
%init %{
    respite_php_gate_call_register();
%}

/*
 * gate_call.c - Gate::call in C, written against the Zend API beside the
 * SWIG wrapper (a SWIG wrapper alone costs more than the whole closed path:
 * its argument copies, a cleared 600-byte error and a type check by name).
 * Gate::call is one line around one internal function,
 *
 *   respite_php_gate_call(Gate $gate, callable $fn, ?Classifier $classifier): mixed
 *
 * which admits (respite_gate_admit_now: no clock read while closed), calls
 * $fn and, when $fn returned a value that needs no judging (no $classifier,
 * no result rules, not an object), reports success (respite_gate_report_now).
 * Everything else goes back to the Gate's PHP, so the rules stay in one
 * place: a refusal or another admit error is thrown after Gate::pollEvents;
 * what $fn threw or a value to judge goes to Gate::settleCall (the
 * classifier and the report), and $fn's Throwable is then rethrown
 * unchanged; pending events after a success go to Gate::pollEvents.
 *
 * The handle is read from the Gate's `ptr` property before the call and
 * again after it ($fn may close the gate: the report then throws
 * ClosedException and never touches freed memory).
 */
#include "respite_php.h"

#include "zend_closures.h"
#include "zend_exceptions.h"

/* The class whose `ptr` and `judgesScalars` are at these offsets; forgotten
 * at each request's start, since a class entry may be freed and its memory
 * reused between requests. */
static zend_class_entry *gate_class;
static uint32_t ptr_offset, judges_offset;

/* The offset of $gate's non-static property `name`; 0 with a TypeError when it has none. */
static uint32_t property_offset(zend_class_entry *ce, const char *name, size_t length)
{
    zend_property_info *info = zend_hash_str_find_ptr(&ce->properties_info, name, length);
    if (!info || (info->flags & ZEND_ACC_STATIC)) {
        zend_type_error("respite_php_gate_call(): %s has no %s property", ZSTR_VAL(ce->name), name);
        return 0;
    }
    return info->offset;
}

/* $gate->ptr's handle: 0, or -1 with an error thrown. */
static int gate_handle(zend_object *gate, respite_gate **handle)
{
    if (gate->ce != gate_class) {
        uint32_t ptr = property_offset(gate->ce, "ptr", sizeof "ptr" - 1);
        uint32_t judges = ptr ? property_offset(gate->ce, "judgesScalars", sizeof "judgesScalars" - 1) : 0;
        if (!judges)
            return -1;
        gate_class = gate->ce;
        ptr_offset = ptr;
        judges_offset = judges;
    }
    zval *ptr = OBJ_PROP(gate, ptr_offset);
    ZVAL_DEREF(ptr);
    return respite_php_gate_ptr(Z_ISUNDEF_P(ptr) ? &EG(uninitialized_zval) : ptr, handle);
}

/* $gate->judgesScalars (its classifier has result rules), once gate_handle has read $gate. */
static bool judges_scalars(zend_object *gate)
{
    zval *judges = OBJ_PROP(gate, judges_offset);
    ZVAL_DEREF(judges);
    return Z_TYPE_P(judges) == IS_TRUE;
}

/* $gate->method(...args), its value dropped; an exception it throws stays thrown. */
static void call_gate(zend_object *gate, const char *method, size_t length, uint32_t count, zval *args)
{
    zend_function *fn = zend_hash_str_find_ptr_lc(&gate->ce->function_table, method, length);
    if (!fn) {
        zend_throw_error(NULL, "respite_php_gate_call(): %s has no method %s", ZSTR_VAL(gate->ce->name), method);
        return;
    }
    zval ignored;
    zend_call_known_function(fn, gate, gate->ce, &ignored, count, args, NULL);
    zval_ptr_dtor(&ignored);
}

/* $gate->settleCall($permit, $thrown, $result, $classifier): the classifier's verdict, reported. */
static void settle(zend_object *gate, int64_t permit, zend_object *thrown, zval *result, zval *classifier)
{
    zval args[4];
    ZVAL_LONG(&args[0], permit);
    if (thrown)
        ZVAL_OBJ(&args[1], thrown);
    else
        ZVAL_NULL(&args[1]);
    ZVAL_COPY_VALUE(&args[2], result);
    ZVAL_COPY_VALUE(&args[3], classifier);
    call_gate(gate, "settleCall", sizeof "settleCall" - 1, 4, args);
}

/* Makes the call of $fn with no arguments: 0, or -1 with a TypeError. A
 * closure is resolved by its handler alone, as zend_is_callable does for
 * objects; anything else the long way (before admitting: a permit is never
 * left unreported because $fn was not callable). */
static int prepare_call(zval *fn, zend_fcall_info *fci, zend_fcall_info_cache *fcc)
{
    if (Z_TYPE_P(fn) == IS_OBJECT && Z_OBJCE_P(fn) == zend_ce_closure &&
        Z_OBJ_HANDLER_P(fn, get_closure)(Z_OBJ_P(fn), &fcc->calling_scope, &fcc->function_handler, &fcc->object,
                                         0) == SUCCESS) {
        fcc->called_scope = fcc->calling_scope;
        fci->size = sizeof *fci;
        ZVAL_COPY_VALUE(&fci->function_name, fn);
        fci->object = fcc->object;
        fci->param_count = 0;
        fci->params = NULL;
        fci->named_params = NULL;
        return 0;
    }
    char *why = NULL;
    if (zend_fcall_info_init(fn, 0, fci, fcc, NULL, &why) == SUCCESS)
        return 0;
    zend_type_error("respite_php_gate_call(): argument #2 ($fn) must be a valid callback, %s",
                    why ? why : "not callable");
    if (why)
        efree(why);
    return -1;
}

static ZEND_FUNCTION(respite_php_gate_call)
{
    zend_object *gate;
    zval *fn, *classifier;
    ZEND_PARSE_PARAMETERS_START(3, 3)
        Z_PARAM_OBJ(gate)
        Z_PARAM_ZVAL(fn)
        Z_PARAM_ZVAL(classifier)
    ZEND_PARSE_PARAMETERS_END();

    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    respite_gate *handle;
    if (gate_handle(gate, &handle) != 0 || prepare_call(fn, &fci, &fcc) != 0)
        return;
    respite_error err;
    respite_error_clear(&err); /* not = {0}: the message is written only on errors */
    int64_t permit = respite_gate_admit_now(handle, &err);
    if (permit <= 0) { /* refused (err is the refusal), closed or an error: events first */
        zend_release_fcall_info_cache(&fcc); /* $fn is not called */
        call_gate(gate, "pollEvents", sizeof "pollEvents" - 1, 0, NULL);
        if (!EG(exception))
            respite_php_throw(&err);
        return;
    }

    fci.retval = return_value;
    zend_call_function(&fci, &fcc);
    if (EG(exception)) { /* reported by the classifier, then rethrown unchanged */
        zend_object *thrown = EG(exception);
        EG(exception) = NULL; /* set again below: PHP calls nothing while one is pending */
        zval none;
        ZVAL_NULL(&none);
        settle(gate, permit, thrown, &none, classifier);
        if (EG(exception)) /* reporting failed: that error wins, as a throw in a catch block */
            OBJ_RELEASE(thrown);
        else
            EG(exception) = thrown;
        zval_ptr_dtor(return_value);
        ZVAL_NULL(return_value);
        return;
    }
    if (Z_ISUNDEF_P(return_value))
        ZVAL_NULL(return_value);
    if (Z_TYPE_P(return_value) == IS_OBJECT || Z_TYPE_P(classifier) != IS_NULL || judges_scalars(gate)) {
        settle(gate, permit, NULL, return_value, classifier);
        return;
    }
    if (gate_handle(gate, &handle) != 0)
        return;
    if (respite_gate_report_now(handle, permit, RESPITE_OUTCOME_SUCCESS, 0.0, &err) != RESPITE_OK) {
        respite_php_throw(&err);
        return;
    }
    if (respite_gate_events_pending(handle) > 0)
        call_gate(gate, "pollEvents", sizeof "pollEvents" - 1, 0, NULL);
}

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_respite_php_gate_call, 0, 3, IS_MIXED, 0)
    ZEND_ARG_TYPE_INFO(0, gate, IS_OBJECT, 0)
    ZEND_ARG_TYPE_INFO(0, fn, IS_CALLABLE, 0)
    ZEND_ARG_TYPE_INFO(0, classifier, IS_OBJECT, 1)
ZEND_END_ARG_INFO()

static const zend_function_entry functions[] = {
    ZEND_FE(respite_php_gate_call, arginfo_respite_php_gate_call)
    ZEND_FE_END
};

void respite_php_gate_call_register(void)
{
    zend_register_functions(NULL, functions, NULL, MODULE_PERSISTENT);
}

void respite_php_gate_call_request(void)
{
    gate_class = NULL;
}

/*
 * gate_call.c - Gate::call in C: the extension's abstract class
 * Respite\Internal\NativeGate, which Respite\Gate extends, so that
 * $gate->call($fn, $classifier) is one internal method (a PHP method around
 * an internal function cost more than the whole closed path: its frame and
 * its `callable` check). The methods are documented in ext/respite.stub.php.
 *
 * call() admits, calls $fn and, when $fn returned a value that needs no
 * judging (no $classifier, no result rules, not an object), reports
 * success. A closed admit and a closed, confirmed success are decided here
 * by the core's fast-path protocol (respite/fast_path.h, spec K1-K6), with
 * no call into the core: a PHP object is used by one thread only, so each
 * object owns its counter block (K5). Every other answer is the core's
 * (respite_gate_admit_now, respite_gate_report_now), and the rest goes back
 * to the Gate's PHP, so the rules stay in one place: a refusal or another
 * admit error is thrown after Gate::pollEvents; what $fn threw or a value to
 * judge goes to Gate::settleCall (the classifier and the report), and $fn's
 * Throwable is then rethrown unchanged; pending events after a call go to
 * Gate::pollEvents (K4).
 *
 * The object holds a reference of its own to the gate (setCallHandle, from
 * the Gate's constructor, dropped by its close()), so the fast path's
 * addresses stay valid while it reads them, and $fn closing the gate makes
 * the report throw the core's ClosedException.
 */
#include "respite_php.h"
#include "respite/fast_path_reader.h"

#include "zend_closures.h"
#include "zend_exceptions.h"

typedef struct native_gate {
    respite_gate *gate;  /* this object's reference; NULL before setCallHandle and once closed */
    bool judges_scalars; /* the Gate's classifier has result rules: every value is judged */
    /* The fast path (K1-K5), fetched at the gate's first call; fast.word NULL before. */
    respite_fast_reader fast;
    zend_object std; /* last: PHP puts the properties after it */
} native_gate;

static zend_class_entry *native_gate_class;
static zend_object_handlers native_gate_handlers;

static native_gate *native_of(zend_object *object)
{
    return (native_gate *)((char *)object - XtOffsetOf(native_gate, std));
}

static zend_object *native_create(zend_class_entry *ce)
{
    native_gate *g = zend_object_alloc(sizeof *g, ce);
    memset(g, 0, XtOffsetOf(native_gate, std));
    zend_object_std_init(&g->std, ce);
    object_properties_init(&g->std, ce);
    g->std.handlers = &native_gate_handlers;
    return &g->std;
}

/* Makes `gate` (NULL: none) the one call() uses, with a reference of its own;
 * the previous gate's reference and fast path are dropped. */
static void use_gate(native_gate *g, respite_gate *gate, bool judges_scalars)
{
    respite_gate *previous = g->gate;
    memset(g, 0, XtOffsetOf(native_gate, std));
    g->gate = respite_gate_retain(gate);
    g->judges_scalars = judges_scalars;
    respite_gate_free(previous);
}

static void native_free(zend_object *object)
{
    use_gate(native_of(object), NULL, false);
    zend_object_std_dtor(object);
}

/* The gate's fast path, at its first call. Without it (out of memory) every
 * answer is the core's, which is exact too. */
static void fetch_fast_path(native_gate *g)
{
    respite_fast_path fp;
    respite_error err;
    respite_error_clear(&err);
    if (respite_gate_fast_path(g->gate, &fp, &err) != RESPITE_OK)
        return;
    respite_fast_reader_init(&g->fast, &fp);
}

/* K1, K2: the closed gate's permit, counted in the block; 0 when the core must answer. */
static inline int64_t admit_fast(const native_gate *g)
{
    return g->fast.word ? respite_fast_reader_admit(&g->fast) : 0;
}

/* K3: the permit's success, counted in the block when the gate is closed and
 * confirmed in the permit's generation; false when the core must answer. */
static inline bool success_fast(const native_gate *g, int64_t permit)
{
    return g->fast.word && respite_fast_reader_success(&g->fast, permit);
}

/* K4: events wait for this handle. */
static inline bool events_waiting(const native_gate *g)
{
    if (g->fast.word)
        return respite_fast_reader_events_waiting(&g->fast);
    return respite_gate_events_pending(g->gate) > 0;
}

/* $gate->method(...args), its value dropped; an exception it throws stays thrown. */
static void call_gate(zend_object *gate, const char *method, size_t length, uint32_t count, zval *args)
{
    zend_function *fn = zend_hash_str_find_ptr_lc(&gate->ce->function_table, method, length);
    if (!fn) {
        zend_throw_error(NULL, "%s::call(): %s has no method %s", ZSTR_VAL(native_gate_class->name),
                         ZSTR_VAL(gate->ce->name), method);
        return;
    }
    zval ignored;
    zend_call_known_function(fn, gate, gate->ce, &ignored, count, args, NULL);
    zval_ptr_dtor(&ignored);
}

static void poll_events(zend_object *gate)
{
    call_gate(gate, "pollEvents", sizeof "pollEvents" - 1, 0, NULL);
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
    if (classifier)
        ZVAL_COPY_VALUE(&args[3], classifier);
    else
        ZVAL_NULL(&args[3]);
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
    zend_argument_type_error(1, "must be a valid callback, %s", why ? why : "not callable");
    if (why)
        efree(why);
    return -1;
}

/* $classifier is null or a Respite\Classifier: 0, or -1 with a TypeError. */
static int check_classifier(zval *classifier)
{
    if (!classifier)
        return 0;
    /* A Classifier's class is loaded once one exists. */
    zend_class_entry *ce = zend_hash_str_find_ptr(EG(class_table), "respite\\classifier", sizeof "respite\\classifier" - 1);
    if (Z_TYPE_P(classifier) == IS_OBJECT && ce && instanceof_function(Z_OBJCE_P(classifier), ce))
        return 0;
    zend_argument_type_error(2, "must be of type ?Respite\\Classifier, %s given", zend_zval_type_name(classifier));
    return -1;
}

/* $fn threw: the classifier reports it, then it is rethrown unchanged. */
static void settle_thrown(zend_object *gate, int64_t permit, zval *classifier)
{
    zend_object *thrown = EG(exception);
    EG(exception) = NULL; /* set again below: PHP calls nothing while one is pending */
    zval none;
    ZVAL_NULL(&none);
    settle(gate, permit, thrown, &none, classifier);
    if (EG(exception)) /* reporting failed: that error wins, as a throw in a catch block */
        OBJ_RELEASE(thrown);
    else
        EG(exception) = thrown;
}

/* call(callable $fn, ?Classifier $classifier = null): mixed */
static ZEND_METHOD(NativeGate, call)
{
    zval *fn, *classifier = NULL;
    ZEND_PARSE_PARAMETERS_START(1, 2)
        Z_PARAM_ZVAL(fn)
        Z_PARAM_OPTIONAL
        Z_PARAM_ZVAL_OR_NULL(classifier)
    ZEND_PARSE_PARAMETERS_END();

    zend_object *self = Z_OBJ_P(ZEND_THIS);
    native_gate *g = native_of(self);
    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    if (check_classifier(classifier) != 0 || prepare_call(fn, &fci, &fcc) != 0)
        return;
    if (!g->fast.word && g->gate)
        fetch_fast_path(g);
    respite_error err;
    int64_t permit = admit_fast(g);
    if (permit == 0) {
        respite_error_clear(&err); /* not = {0}: the message is written only on errors */
        permit = respite_gate_admit_now(g->gate, &err);
        if (permit <= 0) { /* refused (err is the refusal), closed or an error: events first */
            zend_release_fcall_info_cache(&fcc); /* $fn is not called */
            poll_events(self);
            if (!EG(exception))
                respite_php_throw(&err);
            return;
        }
    }

    fci.retval = return_value;
    zend_call_function(&fci, &fcc);
    if (EG(exception)) {
        settle_thrown(self, permit, classifier);
        zval_ptr_dtor(return_value);
        ZVAL_NULL(return_value);
        return;
    }
    if (Z_ISUNDEF_P(return_value))
        ZVAL_NULL(return_value);
    if (Z_TYPE_P(return_value) == IS_OBJECT || classifier || g->judges_scalars) {
        settle(self, permit, NULL, return_value, classifier);
        return;
    }
    /* g->gate again: $fn may have closed the gate (the core then throws ClosedException). */
    if (!success_fast(g, permit)) {
        respite_error_clear(&err);
        if (respite_gate_report_now(g->gate, permit, RESPITE_OUTCOME_SUCCESS, 0.0, &err) != RESPITE_OK) {
            respite_php_throw(&err);
            return;
        }
    }
    if (events_waiting(g))
        poll_events(self);
}

/* setCallHandle(mixed $handle, bool $judgesScalars): void */
static ZEND_METHOD(NativeGate, setCallHandle)
{
    zval *handle;
    bool judges_scalars;
    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_ZVAL(handle)
        Z_PARAM_BOOL(judges_scalars)
    ZEND_PARSE_PARAMETERS_END();
    (void)return_value; /* void */
    respite_gate *gate;
    if (respite_php_gate_ptr(handle, &gate) == 0)
        use_gate(native_of(Z_OBJ_P(ZEND_THIS)), gate, judges_scalars);
}

/* fastPathCounts(): array{admitted: int, reported: int}|null (for the replay test) */
static ZEND_METHOD(NativeGate, fastPathCounts)
{
    ZEND_PARSE_PARAMETERS_NONE();
    native_gate *g = native_of(Z_OBJ_P(ZEND_THIS));
    if (!g->fast.word)
        RETURN_NULL();
    array_init(return_value);
    add_assoc_long(return_value, "admitted", (zend_long)__atomic_load_n(g->fast.admitted, __ATOMIC_RELAXED));
    add_assoc_long(return_value, "reported", (zend_long)__atomic_load_n(g->fast.reported, __ATOMIC_RELAXED));
}

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_call, 0, 1, IS_MIXED, 0)
    ZEND_ARG_TYPE_INFO(0, fn, IS_CALLABLE, 0)
    ZEND_ARG_OBJ_INFO_WITH_DEFAULT_VALUE(0, classifier, Respite\\Classifier, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_set_call_handle, 0, 2, IS_VOID, 0)
    ZEND_ARG_TYPE_INFO(0, handle, IS_MIXED, 0)
    ZEND_ARG_TYPE_INFO(0, judgesScalars, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_fast_path_counts, 0, 0, IS_ARRAY, 1)
ZEND_END_ARG_INFO()

static const zend_function_entry native_gate_methods[] = {
    ZEND_ME(NativeGate, call, arginfo_call, ZEND_ACC_PUBLIC)
    ZEND_ME(NativeGate, setCallHandle, arginfo_set_call_handle, ZEND_ACC_PROTECTED)
    ZEND_ME(NativeGate, fastPathCounts, arginfo_fast_path_counts, ZEND_ACC_PROTECTED)
    ZEND_FE_END
};

void respite_php_gate_call_register(void)
{
    zend_class_entry ce;
    INIT_CLASS_ENTRY(ce, "Respite\\Internal\\NativeGate", native_gate_methods);
    native_gate_class = zend_register_internal_class_ex(&ce, NULL);
    native_gate_class->ce_flags |= ZEND_ACC_ABSTRACT;
    native_gate_class->create_object = native_create;
    memcpy(&native_gate_handlers, zend_get_std_object_handlers(), sizeof native_gate_handlers);
    native_gate_handlers.offset = XtOffsetOf(native_gate, std);
    native_gate_handlers.free_obj = native_free;
    native_gate_handlers.clone_obj = NULL; /* two PHP objects would free one handle twice */
}

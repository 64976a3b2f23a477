/*
 * attempt.c - `with gate.attempt():` in C. The type respite.Attempt holds
 * what one call made through a gate needs (gate, now, permit, the outcome
 * code and retry_after set on it); gate.py adds its Python methods (the
 * setters and the async forms). Gate.attempt(now=None) makes one with no
 * Python frame, __enter__ admits (respite_gate_admit_now, or admit at `now`)
 * and __exit__ reports (respite_gate_report_now, or report at `now`), each
 * followed by the gate's event rule; a closed admit and a closed, confirmed
 * success are decided by the fast-path protocol instead (see attempt_call).
 * Not garbage-collected: it refers only to its gate and numbers, so it
 * cannot be part of a cycle the gate makes; and `with` binds its steps
 * without making method objects (see "The with statement's steps").
 *
 * __exit__ decides as gate.py did: no exception -> the outcome set on the
 * attempt, else success; an exception that is not an Exception (KeyboardInterrupt,
 * SystemExit, cancellation) -> nothing reported (G10); another exception with
 * no outcome set -> the gate's classifier (Python: Classifier.exception) says
 * its outcome and hint, request_error when it is the caller's own. The gate's
 * handle is read from gate._own at each step (gate_handle.c), so a gate
 * closed inside the block raises ClosedError on the way out, as before.
 */
#define PY_SSIZE_T_CLEAN
#include "respite_py.h"

#if PY_VERSION_HEX >= 0x030C0000
#define ATTEMPT_T_OBJECT Py_T_OBJECT_EX
#define ATTEMPT_T_INT64 Py_T_LONGLONG
#define ATTEMPT_T_SSIZE Py_T_PYSSIZET
#define ATTEMPT_READONLY Py_READONLY
#else
#include <structmember.h>
#define ATTEMPT_T_OBJECT T_OBJECT_EX
#define ATTEMPT_T_INT64 T_LONGLONG
#define ATTEMPT_T_SSIZE T_PYSSIZET
#define ATTEMPT_READONLY READONLY
#endif

#include <limits.h>
#include <stddef.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall; /* attempt_call: see "The with statement's steps" */
    PyObject *gate;
    PyObject *now;         /* None: the core's clock */
    PyObject *code;        /* None: success, or the exception's outcome */
    PyObject *retry_after; /* None: no hint set */
    long long permit;
} attempt_object;

static PyObject *attempt_type; /* respite.Attempt */
static PyObject *step_type;    /* the type of Attempt.__enter__ and Attempt.__exit__ */
static PyObject *str_classifier;
static PyObject *str_exception;

/* A time or a hint as the core takes it (a float or an int, as SWIG's double); -1 with an exception. */
static int as_double(PyObject *value, const char *what, double *out)
{
    if (!PyFloat_Check(value) && !PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be a number (got %R)", what, value);
        return -1;
    }
    *out = PyFloat_AsDouble(value);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* An outcome code (an int the core checks); -1 with an exception. */
static int as_code(PyObject *value, int *out)
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "an outcome code must be an int (got %R)", value);
        return -1;
    }
    long code = PyLong_AsLong(value);
    if (code == -1 && PyErr_Occurred())
        return -1;
    if (code < INT_MIN || code > INT_MAX) {
        PyErr_Format(PyExc_OverflowError, "outcome code %ld does not fit an int", code);
        return -1;
    }
    *out = (int)code;
    return 0;
}

static void attempt_clear(attempt_object *self)
{
    Py_CLEAR(self->gate);
    Py_CLEAR(self->now);
    Py_CLEAR(self->code);
    Py_CLEAR(self->retry_after);
}

/* Attempts freed lately, kept for the next ones (as CPython keeps floats and
 * tuples): `with gate.attempt()` makes and frees one per call. One kept
 * still holds its reference to its type, so taking it back only sets its
 * count. Guarded by the GIL, as everything here. */
#define FREE_ATTEMPTS 8
static attempt_object *free_attempts[FREE_ATTEMPTS];
static int free_count;

static void attempt_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    attempt_clear((attempt_object *)op);
    if ((PyObject *)type == attempt_type && free_count < FREE_ATTEMPTS) {
        free_attempts[free_count++] = (attempt_object *)op;
        return;
    }
    freefunc free_slot = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_slot(op);
    Py_DECREF(type);
}

static PyObject *attempt_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* Fills a new attempt of `type` (Attempt or a subclass) for `gate` at `now`. */
static PyObject *attempt_make(PyTypeObject *type, PyObject *gate, PyObject *now)
{
    attempt_object *self;
    if ((PyObject *)type == attempt_type && free_count > 0) {
        self = free_attempts[--free_count];
#if defined(Py_REF_DEBUG) || defined(Py_TRACE_REFS)
        _Py_NewReference((PyObject *)self); /* the debug builds' reference accounting */
#else
        Py_SET_REFCNT((PyObject *)self, 1);
#endif
    } else {
        allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
        self = (attempt_object *)alloc(type, 0);
        if (!self)
            return NULL;
    }
    Py_INCREF(gate);
    self->gate = gate;
    Py_INCREF(now);
    self->now = now;
    Py_INCREF(Py_None);
    self->code = Py_None;
    Py_INCREF(Py_None);
    self->retry_after = Py_None;
    self->permit = 0;
    self->vectorcall = attempt_call;
    return (PyObject *)self;
}

/* Attempt(gate, now) */
static PyObject *attempt_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"gate", "now", NULL};
    PyObject *gate, *now = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:Attempt", names, &gate, &now))
        return NULL;
    return attempt_make(type, gate, now);
}

/* gate.attempt(now=None): an Attempt, made without a Python frame. */
static PyObject *gate_attempt(PyObject *gate, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *now = nargs > 0 ? args[0] : Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    if (nargs > 1 || nargs + nkw > 1 ||
        (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GetItem(kwnames, 0), "now") != 0)) {
        PyErr_SetString(PyExc_TypeError, "attempt() takes one optional argument, now");
        return NULL;
    }
    if (nkw == 1)
        now = args[nargs];
    return attempt_make((PyTypeObject *)attempt_type, gate, now);
}

/* __enter__ through the core: asks the gate (refused: TemporarilyUnavailableError); returns the attempt. */
static PyObject *attempt_enter(PyObject *op, PyObject *unused)
{
    (void)unused;
    attempt_object *self = (attempt_object *)op;
    PyObject *gate = self->gate;
    if (!gate) {
        PyErr_SetString(PyExc_AttributeError, "gate");
        return NULL;
    }
    Py_INCREF(gate);
    respite_gate *handle;
    respite_py_fast *fast;
    PyObject *own = respite_py_gate_own(gate, &handle, &fast);
    if (!own) {
        Py_DECREF(gate);
        return NULL;
    }
    respite_error err;
    respite_error_clear(&err); /* not = {0}: the message buffer is written only on errors */
    int64_t permit = -1;
    double now = 0.0;
    int timed = self->now != NULL && self->now != Py_None;
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    if (timed && as_double(self->now, "now", &now) != 0)
        PyErr_Fetch(&type, &value, &tb); /* raised after the events are logged */
    else
        permit = timed ? respite_gate_admit(handle, now, &err) : respite_gate_admit_now(handle, &err);
    /* as Gate.acquire: events are logged whether or not the gate admitted;
     * an error while logging them wins */
    int polled = respite_py_gate_poll(gate, own, handle, fast);
    Py_DECREF(own);
    Py_DECREF(gate);
    if (type && polled == 0) {
        PyErr_Restore(type, value, tb);
        return NULL;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (polled != 0)
        return NULL;
    if (err.status != RESPITE_OK)
        return respite_py_raise(&err);
    self->permit = permit;
    Py_INCREF(op);
    return op;
}

/* The outcome and hint the exception `exc` says, by the gate's classifier. */
static int classify_exception(PyObject *gate, PyObject *exc, int *code, double *hint, int have_hint)
{
    PyObject *classifier = PyObject_GetAttr(gate, str_classifier);
    PyObject *verdict = classifier ? PyObject_CallMethodObjArgs(classifier, str_exception, exc, NULL) : NULL;
    Py_XDECREF(classifier);
    if (!verdict)
        return -1;
    PyObject *verdict_code = NULL, *verdict_hint = NULL;
    if (PyTuple_Check(verdict) && PyTuple_Size(verdict) == 3) {
        verdict_code = PyTuple_GetItem(verdict, 0);
        verdict_hint = PyTuple_GetItem(verdict, 2);
    }
    int ok = verdict_code != NULL;
    if (!ok)
        PyErr_SetString(PyExc_TypeError, "Classifier.exception() must return (code, status, hint)");
    if (ok && verdict_code == Py_None) /* the caller's own: not the service's fault */
        *code = RESPITE_OUTCOME_REQUEST_ERROR;
    else if (ok)
        ok = as_code(verdict_code, code) == 0;
    if (ok && !have_hint && verdict_hint != Py_None)
        ok = as_double(verdict_hint, "retry_after", hint) == 0;
    Py_DECREF(verdict);
    return ok ? 0 : -1;
}

/* __exit__(exc_type, exc, tb) through the core: reports how the block ended;
 * returns None, so an exception from the block always propagates. */
static PyObject *attempt_exit(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    attempt_object *self = (attempt_object *)op;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "__exit__() takes exc_type, exc and tb");
        return NULL;
    }
    PyObject *exc = args[1];
    if (exc != Py_None && !PyObject_TypeCheck(exc, (PyTypeObject *)PyExc_Exception)) {
        int is_exception = PyObject_IsInstance(exc, PyExc_Exception);
        if (is_exception < 0)
            return NULL;
        if (!is_exception) /* KeyboardInterrupt, SystemExit, cancellation: the call did not end (G10) */
            Py_RETURN_NONE;
    }
    PyObject *gate = self->gate;
    if (!gate) {
        PyErr_SetString(PyExc_AttributeError, "gate");
        return NULL;
    }
    Py_INCREF(gate);
    int code = RESPITE_OUTCOME_SUCCESS;
    double hint = 0.0, now = 0.0;
    int failed = 0;
    int have_hint = self->retry_after != NULL && self->retry_after != Py_None;
    if (have_hint)
        failed = as_double(self->retry_after, "retry_after", &hint) != 0;
    if (!failed && self->code != NULL && self->code != Py_None) {
        failed = as_code(self->code, &code) != 0;
    } else if (!failed && exc != Py_None) {
        failed = classify_exception(gate, exc, &code, &hint, have_hint) != 0;
    }
    int timed = self->now != NULL && self->now != Py_None;
    if (!failed && timed)
        failed = as_double(self->now, "now", &now) != 0;
    respite_gate *handle;
    respite_py_fast *fast;
    PyObject *own = failed ? NULL : respite_py_gate_own(gate, &handle, &fast);
    if (!own) {
        Py_DECREF(gate);
        return NULL;
    }
    respite_error err;
    respite_error_clear(&err); /* not = {0}: the message buffer is written only on errors */
    int rc = timed ? respite_gate_report(handle, self->permit, code, hint, now, &err)
                   : respite_gate_report_now(handle, self->permit, code, hint, &err);
    int polled = rc == RESPITE_OK ? respite_py_gate_poll(gate, own, handle, fast) : 0;
    Py_DECREF(own);
    Py_DECREF(gate);
    if (rc != RESPITE_OK)
        return respite_py_raise(&err);
    if (polled != 0)
        return NULL;
    Py_RETURN_NONE;
}

#ifdef RESPITE_PY_FAST_PATH
#ifdef Py_LIMITED_API
#define PyFloat_AS_DOUBLE PyFloat_AsDouble /* no macro there; on a float it cannot fail */
#endif

/* The time of a step the fast path may decide (K2): none, or a valid float. */
static inline int fast_time(PyObject *now)
{
    return now == Py_None || (now && PyFloat_CheckExact(now) && respite_py_fast_time(1, PyFloat_AS_DOUBLE(now)));
}

/* K4 after a step decided here: the gate's waiting events, taken holding
 * references (logging runs Python code); then the step's value, `done`
 * (a new reference), or NULL when logging raised. Out of line, so that the
 * step itself saves no registers. */
static PyObject *take_events(attempt_object *self, PyObject *own, int64_t permit, PyObject *done)
{
    PyObject *gate = self->gate;
    Py_INCREF(gate);
    Py_INCREF(own);
    int taken = respite_py_gate_take_events(gate, own);
    Py_DECREF(own);
    Py_DECREF(gate);
    if (taken != 0)
        return NULL;
    if (permit != 0)
        self->permit = permit;
    Py_INCREF(done);
    return done;
}
#endif

/*
 * The with statement's steps. `with` looks __enter__ and __exit__ up on the
 * type and binds them to the attempt: two method objects made and freed on
 * every use, which cost more than the gate's own work. So the two are
 * instances of a small descriptor type whose binding is the attempt itself,
 * and an attempt called with no arguments enters, with three (exc_type,
 * exc, tb) exits. Called on the class (Attempt.__enter__(a), as
 * contextlib.ExitStack does), a step takes the attempt first.
 *
 * The fast path (fast_path.h) decides two steps whole: entering a closed
 * gate, and leaving a block that ended with no exception, outcome or hint
 * while the gate is closed and confirmed, at the core's clock or a valid
 * float time; nothing to convert, no reference to take until events wait.
 * Every other step goes through the core (attempt_enter, attempt_exit).
 */
static PyObject *attempt_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
#ifdef RESPITE_PY_FAST_PATH
    attempt_object *self = (attempt_object *)op;
    respite_py_fast *fast;
    PyObject *own;
    if (!kwnames && self->gate && fast_time(self->now) && (fast = respite_py_gate_fast(self->gate, &own))) {
        if (nargs == 0) {
            int64_t permit = respite_fast_reader_admit(&fast->reader);
            if (permit != 0) {
                if (respite_fast_reader_events_waiting(&fast->reader))
                    return take_events(self, own, permit, op);
                self->permit = permit;
                Py_INCREF(op);
                return op;
            }
        } else if (nargs == 3 && args[1] == Py_None && self->code == Py_None && self->retry_after == Py_None &&
                   respite_fast_reader_success(&fast->reader, self->permit)) {
            if (respite_fast_reader_events_waiting(&fast->reader))
                return take_events(self, own, 0, Py_None);
            Py_RETURN_NONE;
        }
    }
#endif
    if ((kwnames && PyTuple_Size(kwnames) > 0) || (nargs != 0 && nargs != 3)) {
        PyErr_SetString(PyExc_TypeError, "an attempt is entered with no arguments, or left with exc_type, exc, tb");
        return NULL;
    }
    return nargs == 0 ? attempt_enter(op, NULL) : attempt_exit(op, args, nargs);
}

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall; /* step_call */
    int exit;                  /* 0: __enter__, 1: __exit__ */
} step_object;

static PyObject *step_get(PyObject *step, PyObject *obj, PyObject *type)
{
    (void)type;
    PyObject *bound = obj ? obj : step; /* on an attempt: the attempt; on the class: the step */
    Py_INCREF(bound);
    return bound;
}

/* Attempt.__enter__(attempt), Attempt.__exit__(attempt, exc_type, exc, tb) */
static PyObject *step_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    step_object *step = (step_object *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int is_attempt = nargs > 0 ? PyObject_IsInstance(args[0], attempt_type) : 0;
    if (is_attempt < 0)
        return NULL;
    if (!is_attempt || (kwnames && PyTuple_Size(kwnames) > 0) || nargs != (step->exit ? 4 : 1)) {
        PyErr_SetString(PyExc_TypeError, step->exit ? "Attempt.__exit__(attempt, exc_type, exc, tb)"
                                                    : "Attempt.__enter__(attempt)");
        return NULL;
    }
    return step->exit ? attempt_exit(args[0], args + 1, 3) : attempt_enter(args[0], NULL);
}

static void step_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    freefunc free_slot = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_slot(op);
    Py_DECREF(type);
}

static PyMemberDef step_members[] = {
    {"__vectorcalloffset__", ATTEMPT_T_SSIZE, offsetof(step_object, vectorcall), ATTEMPT_READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot step_slots[] = {
    {Py_tp_doc, "Attempt.__enter__ (asks the gate) or Attempt.__exit__ (reports how the block ended)."},
    {Py_tp_descr_get, step_get},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_dealloc, step_dealloc},
    {Py_tp_members, step_members},
    {0, NULL},
};

static PyType_Spec step_spec = {
    "respite._AttemptStep",
    sizeof(step_object),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    step_slots,
};

/* A step, or NULL with an exception. */
static PyObject *step_new(int exit)
{
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)step_type, Py_tp_alloc);
    step_object *step = (step_object *)alloc((PyTypeObject *)step_type, 0);
    if (step) {
        step->vectorcall = step_call;
        step->exit = exit;
    }
    return (PyObject *)step;
}

static PyMemberDef attempt_members[] = {
    {"__vectorcalloffset__", ATTEMPT_T_SSIZE, offsetof(attempt_object, vectorcall), ATTEMPT_READONLY, NULL},
    {"gate", ATTEMPT_T_OBJECT, offsetof(attempt_object, gate), 0, "the gate asked"},
    {"now", ATTEMPT_T_OBJECT, offsetof(attempt_object, now), 0, "the time given (None: the core's clock)"},
    {"permit", ATTEMPT_T_INT64, offsetof(attempt_object, permit), 0, "the permit (0 until entered)"},
    {"_code", ATTEMPT_T_OBJECT, offsetof(attempt_object, code), 0, "the outcome set on the call (None: none)"},
    {"_retry_after", ATTEMPT_T_OBJECT, offsetof(attempt_object, retry_after), 0, "the hint set (None: none)"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot attempt_slots[] = {
    {Py_tp_doc, "One call made through a gate; see Gate.attempt."},
    {Py_tp_new, attempt_new},
    {Py_tp_dealloc, attempt_dealloc},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_members, attempt_members},
    {0, NULL},
};

static PyType_Spec attempt_spec = {
    "respite.Attempt",
    sizeof(attempt_object),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_VECTORCALL,
    attempt_slots,
};

static PyMethodDef gate_attempt_def = {
    "attempt", (PyCFunction)(void (*)(void))gate_attempt, METH_FASTCALL | METH_KEYWORDS,
    "attempt(now=None)\n--\n\n"
    "A context manager around one call: entering asks the gate, leaving reports how the call ended."};

/* Adds Attempt and _gate_attempt (a method descriptor that gate.py makes
 * Gate.attempt) to the module. */
int respite_py_attempt_register(PyObject *module)
{
    if (!(str_classifier = PyUnicode_InternFromString("_classifier")) ||
        !(str_exception = PyUnicode_InternFromString("exception")))
        return -1;
    attempt_type = PyType_FromSpec(&attempt_spec);
    step_type = attempt_type ? PyType_FromSpec(&step_spec) : NULL;
    if (!step_type)
        return -1;
    for (int exit = 0; exit <= 1; exit++) {
        PyObject *step = step_new(exit);
        int set = step ? PyObject_SetAttrString(attempt_type, exit ? "__exit__" : "__enter__", step) : -1;
        Py_XDECREF(step);
        if (set != 0)
            return -1;
    }
    Py_INCREF(attempt_type);
    if (PyModule_AddObject(module, "Attempt", attempt_type) != 0) {
        Py_DECREF(attempt_type);
        return -1;
    }
    PyObject *descr = PyDescr_NewMethod(&PyBaseObject_Type, &gate_attempt_def);
    if (!descr || PyModule_AddObject(module, "_gate_attempt", descr) != 0) {
        Py_XDECREF(descr);
        return -1;
    }
    return 0;
}

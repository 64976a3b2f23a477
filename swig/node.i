/*
 * node.i - the Node raw module on Node-API: `swig -javascript -napi -c++`
 * (node-addon-api, C++ exceptions off). Adds the binary payload typemap (a
 * string or a Buffer) that SWIG's JavaScript module lacks, then the shared
 * interface.
 */
%module respite_native

%{
#include <string>
%}

/* SWIG's Node-API runtime takes strlen of every returned char *, NULL too:
 * a C NULL string is JavaScript's null, as on the V8 backend. */
%fragment("SWIG_FromCharPtrAndSize");
%{
#undef SWIG_FromCharPtr
#define SWIG_FromCharPtr(cptr) \
    ((cptr) ? SWIG_Env_FromCharPtrAndSize(env, (cptr), strlen(cptr)) : Napi::Value(env.Null()))
%}

/* Errors cross as structures (boundary rule 1): every fallible call's
 * respite_error becomes the error lib/errors.js makes from its fields
 * (status, message, setting, retry_after, a policy's problems), thrown
 * here; the thread pool's callbacks get the same object. Nothing parses a
 * message. */
%typemap(argout) respite_error *err {
    if ($1->status != RESPITE_OK) {
        respite_node_throw(env, $1);
        SWIG_fail;
    }
}
%typemap(argout) (respite_problems *problems, respite_error *err) {
    if ($2->status != RESPITE_OK) {
        respite_node_throw(env, $2, $1);
        respite_problems_free($1); /* no freearg when this wrapper fails */
        $1 = NULL;
        SWIG_fail;
    }
}

%{
#include "respite.h"

/* This environment's JavaScript function (status, message, setting,
 * retry_after) -> error, which lib/errors.js registers with
 * respite_node_set_error_maker. Node runs every environment (the main
 * thread, each worker) on a thread of its own: one maker per thread, freed
 * by the environment's cleanup hook. */
static thread_local Napi::FunctionReference *respite_node_maker = nullptr;

static void respite_node_forget_error_maker(void *)
{
    delete respite_node_maker;
    respite_node_maker = nullptr;
}

/* A policy's problems as {pointer, message[, line, column]} objects;
 * undefined without a list (the maker's default, []). */
static Napi::Value respite_node_problems(Napi::Env env, const respite_problems *problems)
{
    if (!problems)
        return env.Undefined();
    Napi::Array list = Napi::Array::New(env);
    for (int i = 0; i < respite_problems_count(problems); i++) {
        Napi::Object problem = Napi::Object::New(env);
        problem.Set("pointer", respite_problems_pointer(problems, i));
        problem.Set("message", respite_problems_message(problems, i));
        if (respite_problems_line(problems, i) > 0) {
            problem.Set("line", respite_problems_line(problems, i));
            problem.Set("column", respite_problems_column(problems, i));
        }
        list.Set(i, problem);
    }
    return list;
}

/* The error for err's fields and a policy's problems; empty when making it threw. */
static Napi::Value respite_node_error(Napi::Env env, const respite_error *err,
                                      const respite_problems *problems = nullptr)
{
    const char *message = err->message[0] ? err->message : respite_strerror(err->status);
    if (!respite_node_maker) { /* the raw module used alone */
        Napi::Error error = Napi::Error::New(env, message);
        error.Set("code", respite_status_name(err->status));
        return error.Value();
    }
    return respite_node_maker->Value().Call({Napi::Number::New(env, err->status), Napi::String::New(env, message),
                                             Napi::String::New(env, err->setting),
                                             Napi::Number::New(env, err->retry_after),
                                             respite_node_problems(env, problems)});
}

static void respite_node_throw(Napi::Env env, const respite_error *err, const respite_problems *problems = nullptr)
{
    Napi::Value error = respite_node_error(env, err, problems);
    if (!error.IsEmpty())
        Napi::Error(env, error).ThrowAsJavaScriptException();
}
%}

/* A JavaScript function called when a job of the thread pool below ends
 * (valid only during the wrapper call; the job keeps its own reference). */
%typemap(in) respite_node_callback *callback (respite_node_callback respite_callback) {
    if (!$input.IsFunction()) {
        SWIG_exception_fail(SWIG_TypeError, "callback must be a function");
    }
    respite_callback.fn = $input.As<Napi::Function>();
    $1 = &respite_callback;
}

/* Binary payloads: a Buffer (or any typed array or DataView) is passed as
 * its bytes, a string as its UTF-8 bytes. Anything else is a TypeError
 * naming what is accepted. */
%typemap(in) (const char *data, size_t size) (std::string respite_utf8) {
    if ($input.IsTypedArray()) {
        Napi::TypedArray respite_view = $input.As<Napi::TypedArray>();
        respite_utf8.assign((const char *)respite_view.ArrayBuffer().Data() + respite_view.ByteOffset(),
                            respite_view.ByteLength());
    } else if ($input.IsDataView()) {
        Napi::DataView respite_view = $input.As<Napi::DataView>();
        respite_utf8.assign((const char *)respite_view.ArrayBuffer().Data() + respite_view.ByteOffset(),
                            respite_view.ByteLength());
    } else if ($input.IsString()) {
        respite_utf8 = $input.As<Napi::String>().Utf8Value();
    } else {
        SWIG_exception_fail(SWIG_TypeError, "payload must be a string or a Buffer");
    }
    $1 = respite_utf8.empty() ? (char *)"" : &respite_utf8[0];
    $2 = respite_utf8.size();
}
%typemap(typecheck) (const char *data, size_t size) {
    $1 = ($input.IsTypedArray() || $input.IsDataView() || $input.IsString()) ? 1 : 0;
}
/* A policy's JSON text, too: its bytes go to the core as given (P4 words
 * bytes that are not UTF-8; a NUL inside is the core's syntax error). */
%apply (const char *data, size_t size) { (const char *json, size_t length) };

/* A text buffer (char *buf, size_t size; respite.i) comes back as a string. */
%typemap(argout) (char *buf, size_t size) {
    $result = Napi::String::New(env, $1);
}

/* A batch event's payload as a Buffer (its exact bytes, NULs included). */
%typemap(out) respite_node_bytes {
    if ($1.data == 0) {
        $result = env.Null();
    } else {
        $result = Napi::Buffer<char>::Copy(env, $1.data, (size_t)$1.size);
    }
}

/* Text (a string) crosses with its length: a NUL byte inside is refused by
 * the core (E15) instead of silently ending the text. A name may be null
 * or undefined (the core reports a policy's as a problem), as in C. */
%define %respite_node_text_in(TYPE, WHAT)
%typemap(in) TYPE (int res, char *buf = 0, size_t size = 0, int alloc = 0, respite_error text_err) {
    if (WHAT && ($input.IsNull() || $input.IsUndefined())) {
        $1 = 0;
    } else {
        res = SWIG_AsCharPtrAndSize($input, &buf, &size, &alloc);
        if (!SWIG_IsOK(res)) {
            SWIG_exception_fail(SWIG_ArgError(res), "in method '$symname', $1_name must be a string");
        }
        if (size > 0 && respite_text_check(buf, size - 1, "$1_name", &text_err) != RESPITE_OK) {
            respite_node_throw(env, &text_err);
            SWIG_fail;
        }
        $1 = buf;
    }
}
%typemap(freearg) TYPE {
    if (alloc$argnum == SWIG_NEWOBJ) delete[] buf$argnum;
}
%enddef
%respite_node_text_in(const char *, 0)
%respite_node_text_in(const char *name, 1)


%{
typedef struct respite_node_bytes {
    const char *data;
    int64_t size;
} respite_node_bytes;
%}

%{
struct respite_node_callback {
    Napi::Function fn;
};
%}

/* Integers: a number that is not integral (1.5, NaN) is a TypeError and one
 * outside the C type (2**70) a RangeError, never truncated or wrapped as
 * SWIG's Node-API conversions do (a permit 1.5 became 1, a status 2**70 -1). */
%{
#include <cmath>
#include <climits>

/* SWIG_OK with *out in [min, limit), SWIG_TypeError or SWIG_OverflowError. */
static int respite_node_integer(Napi::Value value, double min, double limit, double *out)
{
    if (!value.IsNumber())
        return SWIG_TypeError;
    double number = value.As<Napi::Number>().DoubleValue();
    if (!(number == std::trunc(number)))
        return SWIG_TypeError;
    if (!(number >= min && number < limit))
        return SWIG_OverflowError;
    *out = number;
    return SWIG_OK;
}
#define RESPITE_NODE_INT64_LIMIT 9223372036854775808.0
%}
%define RESPITE_NODE_INTEGER_IN(TYPE, MIN, LIMIT)
%typemap(in) TYPE (double respite_number, int respite_res) {
    respite_res = respite_node_integer($input, MIN, LIMIT, &respite_number);
    if (!SWIG_IsOK(respite_res))
        SWIG_exception_fail(SWIG_ArgError(respite_res), "in method '" "$symname" "', argument " "$argnum" " of type '" "$1_type" "'");
    $1 = (TYPE)respite_number;
}
%enddef
RESPITE_NODE_INTEGER_IN(int, INT_MIN, INT_MAX + 1.0)
RESPITE_NODE_INTEGER_IN(int64_t, -RESPITE_NODE_INT64_LIMIT, RESPITE_NODE_INT64_LIMIT)

%include "respite.i"

/* Blocking core calls (an HTTP request, a sender's flush and close) run on
 * threads of the addon's own pool, never on the event loop; the callback
 * gets (error or null, result), the error made as every other one.
 * bindings/node/src/respite_node_jobs.h has the machinery. */
%{
#include "respite_node_jobs.h"
#include "respite_node_gate.h"
%}
%init %{
  respite_node_gate_export(env, exports);
%}
void respite_node_request_start(respite_client *client, respite_gate *gate, const char *method, const char *url,
                                const char *headers, const char *data, size_t size, respite_cancel_token *cancel,
                                respite_node_callback *callback);
void respite_node_sender_flush_start(respite_sender *sender, double timeout_seconds, respite_node_callback *callback);
void respite_node_sender_close_start(respite_sender *sender, respite_node_callback *callback);
void respite_node_sender_free_later(respite_sender *sender);
respite_node_bytes respite_node_response_body(const respite_response *response);

%inline %{
/* Registers this environment's error maker (see respite_node_error). */
void respite_node_set_error_maker(respite_node_callback *callback)
{
    if (!respite_node_maker) {
        respite_node_maker = new Napi::FunctionReference();
        napi_add_env_cleanup_hook(callback->fn.Env(), respite_node_forget_error_maker, nullptr);
    }
    *respite_node_maker = Napi::Persistent(callback->fn);
}

/* Payload `index` of a batch as bytes (a Buffer), for binary events. */
respite_node_bytes respite_node_batch_event_bytes(const respite_batch *batch, int index, respite_error *err)
{
    respite_node_bytes bytes = {0, 0};
    int64_t size = respite_batch_event_size(batch, index, err);
    if (size < 0)
        return bytes;
    bytes.data = respite_batch_event_text(batch, index, err);
    bytes.size = bytes.data ? size : 0;
    return bytes;
}
%}

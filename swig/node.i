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

/* Functions that fill a caller's text buffer (char *buf, size_t size)
 * return the text as a string instead. */
%typemap(in, numinputs=0) (char *buf, size_t size) (char respite_text[1024]) {
    respite_text[0] = '\0';
    $1 = respite_text;
    $2 = sizeof respite_text;
}
%typemap(argout) (char *buf, size_t size) {
    $result = Napi::String::New(env, $1);
}

/* A counter shared with JavaScript: an Int32Array whose first element the
 * core's event callback increments, so the hot path can see "events are
 * waiting" by reading memory instead of crossing into C. */
%typemap(in) int32_t *respite_counter {
    if (!$input.IsTypedArray() || $input.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
        SWIG_exception_fail(SWIG_TypeError, "counter must be an Int32Array");
    }
    Napi::Int32Array respite_array = $input.As<Napi::Int32Array>();
    if (respite_array.ElementLength() < 1) {
        SWIG_exception_fail(SWIG_TypeError, "counter must have at least one element");
    }
    $1 = respite_array.Data();
}

/* A batch event's payload as a Buffer (its exact bytes, NULs included). */
%typemap(out) respite_node_bytes {
    if ($1.data == 0) {
        $result = env.Null();
    } else {
        $result = Napi::Buffer<char>::Copy(env, $1.data, (size_t)$1.size);
    }
}

/* A policy name may be null (the core reports it as a problem), as in C. */
%typemap(in) const char *name (int res, char *buf = 0, int alloc = 0) {
    if ($input.IsNull() || $input.IsUndefined()) {
        $1 = 0;
    } else {
        res = SWIG_AsCharPtrAndSize($input, &buf, NULL, &alloc);
        if (!SWIG_IsOK(res)) {
            SWIG_exception_fail(SWIG_ArgError(res), "in method '$symname', name must be a string or null");
        }
        $1 = buf;
    }
}
%typemap(freearg) const char *name {
    if (alloc$argnum == SWIG_NEWOBJ) delete[] buf$argnum;
}

/* respite_policy_to_json returns malloc'd text the caller frees. */
%newobject respite_policy_to_json;
%typemap(newfree) char * "respite_free_string($1);";

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

%include "respite.i"

/* Blocking core calls (an HTTP request, a sender's flush and close) run on
 * threads of the addon's own pool, never on the event loop; the callback
 * gets (error "<status_name>: <message>" or null, retry_after, result).
 * bindings/node/src/respite_node_jobs.h has the machinery. */
%{
#include "respite_node_jobs.h"
%}
void respite_node_request_start(respite_client *client, respite_gate *gate, const char *method, const char *url,
                                const char *headers, const char *data, size_t size, respite_node_callback *callback);
void respite_node_sender_flush_start(respite_sender *sender, double timeout_seconds, respite_node_callback *callback);
void respite_node_sender_close_start(respite_sender *sender, respite_node_callback *callback);
void respite_node_sender_free_later(respite_sender *sender);
respite_node_bytes respite_node_response_body(const respite_response *response);
int respite_node_pool_threads(void);

%{
/* Called by the core with the gate's lock held: only counts. */
static void respite_node_count_event(const respite_event *event, void *user_data)
{
    (void)event;
    __atomic_fetch_add((int32_t *)user_data, 1, __ATOMIC_RELAXED);
}
%}

%inline %{
/* Counts every event of this gate into counter[0]. The caller keeps the
 * array alive for as long as the gate lives. */
int respite_node_watch_events(respite_gate *gate, int32_t *respite_counter, respite_error *err)
{
    return respite_gate_set_event_callback(gate, respite_node_count_event, respite_counter, err);
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

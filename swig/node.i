/*
 * node.i - the Node (V8) raw module: `swig -javascript -node -c++`.
 * Adds the binary payload typemap (a string or a Buffer) that SWIG's
 * JavaScript module lacks, then the shared interface.
 */
%module respite_native

%{
#include <node_buffer.h>
#include <string>
%}

/* Binary payloads: a Buffer (or any Uint8Array) is passed as is, a string as
 * its UTF-8 bytes. Anything else is a TypeError naming what is accepted. */
%typemap(in) (const char *data, size_t size) (std::string respite_utf8) {
    if ($input->IsArrayBufferView()) {
        v8::Local<v8::ArrayBufferView> view = v8::Local<v8::ArrayBufferView>::Cast($input);
        respite_utf8.resize(view->ByteLength());
        if (!respite_utf8.empty())
            view->CopyContents(&respite_utf8[0], respite_utf8.size());
    } else if ($input->IsString()) {
        v8::Isolate *isolate = v8::Isolate::GetCurrent();
        v8::Local<v8::String> text = v8::Local<v8::String>::Cast($input);
        respite_utf8.resize(text->Utf8Length(isolate));
        if (!respite_utf8.empty())
            text->WriteUtf8(isolate, &respite_utf8[0], (int)respite_utf8.size(), nullptr,
                            v8::String::NO_NULL_TERMINATION);
    } else {
        SWIG_exception_fail(SWIG_TypeError, "payload must be a string or a Buffer");
    }
    $1 = respite_utf8.empty() ? (char *)"" : &respite_utf8[0];
    $2 = respite_utf8.size();
}
%typemap(typecheck) (const char *data, size_t size) {
    $1 = ($input->IsArrayBufferView() || $input->IsString()) ? 1 : 0;
}

/* Functions that fill a caller's text buffer (char *buf, size_t size)
 * return the text as a string instead. */
%typemap(in, numinputs=0) (char *buf, size_t size) (char respite_text[1024]) {
    respite_text[0] = '\0';
    $1 = respite_text;
    $2 = sizeof respite_text;
}
%typemap(argout) (char *buf, size_t size) {
    $result = SWIG_FromCharPtr($1);
}

/* A counter shared with JavaScript: an Int32Array whose first element the
 * core's event callback increments, so the hot path can see "events are
 * waiting" by reading memory instead of crossing into C. */
%typemap(in) int32_t *respite_counter {
    if (!$input->IsInt32Array()) {
        SWIG_exception_fail(SWIG_TypeError, "counter must be an Int32Array");
    }
    v8::Local<v8::Int32Array> respite_array = v8::Local<v8::Int32Array>::Cast($input);
    if (respite_array->Length() < 1) {
        SWIG_exception_fail(SWIG_TypeError, "counter must have at least one element");
    }
    $1 = (int32_t *)((char *)respite_array->Buffer()->GetBackingStore()->Data() + respite_array->ByteOffset());
}

/* A batch event's payload as a Buffer (its exact bytes, NULs included). */
%typemap(out) respite_node_bytes {
    if ($1.data == 0) {
        $result = SWIGV8_NULL();
    } else {
        $result = node::Buffer::Copy(v8::Isolate::GetCurrent(), $1.data, (size_t)$1.size).ToLocalChecked();
    }
}

/* A policy name may be null (the core reports it as a problem), as in C. */
%typemap(in) const char *name (int res, char *buf = 0, int alloc = 0) {
    if ($input->IsNull() || $input->IsUndefined()) {
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

%include "respite.i"

%{
/* Called by the core with the gate's lock held: only counts. */
static void respite_node_count_event(const respite_event *event, void *user_data)
{
    (void)event;
    __atomic_fetch_add((int32_t *)user_data, 1, __ATOMIC_RELAXED);
}
%}

%inline %{
/* The lean path of Gate#run: one crossing each for "read the clock and
 * admit" and "read the clock and report". */
int64_t respite_node_admit_now(respite_gate *gate, respite_error *err)
{
    return respite_gate_admit(gate, respite_now(), err);
}

int respite_node_report_now(respite_gate *gate, int64_t permit, int outcome, double retry_after_hint,
                            respite_error *err)
{
    return respite_gate_report(gate, permit, outcome, retry_after_hint, respite_now(), err);
}

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

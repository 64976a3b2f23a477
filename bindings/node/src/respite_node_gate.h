/*
 * respite_node_gate.h - the gate's hot entry points, written against
 * node-addon-api instead of SWIG's generic wrappers.
 *
 * SWIG's Node-API runtime checks every pointer argument with a JavaScript
 * `instanceof` and a type-table lookup, several times the cost of the core
 * call itself. Gate#run crosses here on every call the lean path cannot
 * take (a probe, a failure, probes = 0, a shared gate), so these functions
 * take a token made once per gate from its SWIG handle and raise errors
 * with the one builder of swig/node.i (respite_node_throw).
 *
 * Included by the SWIG wrapper: the SWIG runtime is defined before it.
 */
#ifndef RESPITE_NODE_GATE_H
#define RESPITE_NODE_GATE_H

#include <napi.h>

/* The gate behind the token respite_node_gate_token made (null: NULL,
 * which the core answers with "gate is closed"); false with a TypeError
 * thrown for anything else. A token is an External: reading it is a field
 * load, where SWIG's handle needs an instanceof and a type lookup. */
static bool respite_node_gate_arg(const Napi::CallbackInfo &info, respite_gate **gate)
{
    Napi::Value value = info[0];
    *gate = nullptr;
    if (value.IsExternal()) {
        *gate = value.As<Napi::External<respite_gate>>().Data();
        return true;
    }
    if (value.IsNull())
        return true;
    Napi::TypeError::New(info.Env(), "gate must be a gate token (respite_node_gate_token) or null")
        .ThrowAsJavaScriptException();
    return false;
}

/* respite_node_gate_token(gate handle): the token the functions below take.
 * It does not own the gate: its holder drops it when freeing the handle. */
static Napi::Value respite_node_gate_token(const Napi::CallbackInfo &info)
{
    Napi::Env env = info.Env();
    void *wrapped = nullptr;
    if (info[0].IsObject() && napi_unwrap(env, info[0], &wrapped) == napi_ok && wrapped) {
        /* ObjectWrap<T> wraps the T* itself; the SWIG type is checked by pointer. */
        auto *object = static_cast<SWIG_NAPI_ObjectWrap_inst *>(wrapped);
        if (object->info == SWIGTYPE_p_respite_gate && object->self)
            return Napi::External<respite_gate>::New(env, static_cast<respite_gate *>(object->self));
    }
    Napi::TypeError::New(env, "gate must be a respite_gate handle").ThrowAsJavaScriptException();
    return Napi::Value();
}

/* `now` at info[index]: 0 when undefined (the core's clock: the _now calls
 * read it only when the answer depends on it), 1 with *now set, -1 with a
 * TypeError thrown for anything else, as SWIG's wrappers do. */
static int respite_node_now_arg(const Napi::CallbackInfo &info, size_t index, double *now)
{
    if (info[index].IsUndefined())
        return 0;
    if (info[index].IsNumber()) {
        *now = info[index].As<Napi::Number>().DoubleValue();
        return 1;
    }
    Napi::TypeError::New(info.Env(), "now must be a number of seconds").ThrowAsJavaScriptException();
    return -1;
}

/* respite_node_gate_admit(gate, now?): the permit, negated when events
 * wait (the caller drains them: the one rule, without a second crossing);
 * or the core's error (the refusal with retry_after, closed, ...) returned,
 * not thrown: a refusal is an answer, and a throw across Node-API costs
 * more than the whole refused call. */
static Napi::Value respite_node_gate_admit(const Napi::CallbackInfo &info)
{
    respite_gate *gate;
    if (!respite_node_gate_arg(info, &gate))
        return Napi::Value();
    respite_error err; /* the core fills every field when it fails */
    err.status = RESPITE_OK;
    double now;
    int given = respite_node_now_arg(info, 1, &now);
    if (given < 0)
        return Napi::Value();
    int64_t permit = given ? respite_gate_admit(gate, now, &err) : respite_gate_admit_now(gate, &err);
    if (err.status != RESPITE_OK)
        return respite_node_error(info.Env(), &err);
    return Napi::Number::New(info.Env(), (double)(respite_gate_events_pending(gate) > 0 ? -permit : permit));
}

/* respite_node_gate_report(gate, permit, outcome, retry_after_hint, now?):
 * reports, then answers how many events wait. */
static Napi::Value respite_node_gate_report(const Napi::CallbackInfo &info)
{
    respite_gate *gate;
    if (!respite_node_gate_arg(info, &gate))
        return Napi::Value();
    double permit, outcome; /* integers, never truncated (as node.i's typemaps) */
    if (respite_node_integer(info[1], -RESPITE_NODE_INT64_LIMIT, RESPITE_NODE_INT64_LIMIT, &permit) != SWIG_OK ||
        respite_node_integer(info[2], INT_MIN, INT_MAX + 1.0, &outcome) != SWIG_OK || !info[3].IsNumber()) {
        Napi::TypeError::New(info.Env(), "permit and outcome must be integers that fit int64_t and int, "
                                         "retry_after_hint a number")
            .ThrowAsJavaScriptException();
        return Napi::Value();
    }
    double hint = info[3].As<Napi::Number>().DoubleValue();
    respite_error err;
    err.status = RESPITE_OK;
    double now;
    int given = respite_node_now_arg(info, 4, &now);
    if (given < 0)
        return Napi::Value();
    if (given)
        respite_gate_report(gate, (int64_t)permit, (int)outcome, hint, now, &err);
    else
        respite_gate_report_now(gate, (int64_t)permit, (int)outcome, hint, &err);
    if (err.status != RESPITE_OK) {
        respite_node_throw(info.Env(), &err);
        return Napi::Value();
    }
    return Napi::Number::New(info.Env(), respite_gate_events_pending(gate));
}

/* An ArrayBuffer over `size` bytes of the gate's memory at `address` (the
 * fast-path protocol's words and block, spec K1-K5): valid while the gate
 * is; its holder reads it only while it holds the gate. */
static Napi::ArrayBuffer respite_node_view(Napi::Env env, int64_t address, size_t size)
{
    return Napi::ArrayBuffer::New(env, (void *)(intptr_t)address, size);
}

/* respite_node_fast_path(gate token): the core's respite_fast_path for a new
 * counter block owned by this handle (spec K5: one per handle in a
 * single-threaded runtime), with ArrayBuffers over its addresses, the
 * masks and the offsets as numbers (exact: they are below 2^53 in size). */
static Napi::Value respite_node_fast_path(const Napi::CallbackInfo &info)
{
    respite_gate *gate;
    if (!respite_node_gate_arg(info, &gate))
        return Napi::Value();
    respite_fast_path fp;
    respite_error err;
    if (respite_gate_fast_path(gate, &fp, &err) != RESPITE_OK) {
        respite_node_throw(info.Env(), &err);
        return Napi::Value();
    }
    Napi::Env env = info.Env();
    Napi::Object out = Napi::Object::New(env);
    out.Set("word", respite_node_view(env, fp.word_address, 8));
    out.Set("events", respite_node_view(env, fp.events_address, 8));
    out.Set("cursor", respite_node_view(env, fp.cursor_address, 8));
    out.Set("block", respite_node_view(env, fp.block_address, (size_t)fp.block_size));
    out.Set("admitMask", Napi::Number::New(env, (double)fp.admit_mask));
    out.Set("admitValue", Napi::Number::New(env, (double)fp.admit_value));
    out.Set("permitMask", Napi::Number::New(env, (double)fp.permit_mask));
    out.Set("successMask", Napi::Number::New(env, (double)fp.success_mask));
    out.Set("successValue", Napi::Number::New(env, (double)fp.success_value));
    out.Set("admittedOffset", Napi::Number::New(env, fp.admitted_offset));
    out.Set("reportedOffset", Napi::Number::New(env, fp.reported_offset));
    return out;
}

/* respite_node_fast_carry(block, offset): adds 1 to the block's 64-bit
 * counter at offset with one 64-bit store, for the add whose low 32 bits
 * JavaScript cannot carry alone (it stores 32-bit halves; a reader must
 * never see a half-carried count). Called by the block's owner only. */
static Napi::Value respite_node_fast_carry(const Napi::CallbackInfo &info)
{
    if (!info[0].IsArrayBuffer() || !info[1].IsNumber()) {
        Napi::TypeError::New(info.Env(), "block must be a fast-path block and offset a number")
            .ThrowAsJavaScriptException();
        return Napi::Value();
    }
    Napi::ArrayBuffer block = info[0].As<Napi::ArrayBuffer>();
    double offset = info[1].As<Napi::Number>().DoubleValue();
    if (!(offset >= 0 && offset + 8 <= (double)block.ByteLength() && offset == (double)(size_t)offset &&
          (size_t)offset % 8 == 0)) {
        Napi::RangeError::New(info.Env(), "offset must be a counter's offset in the block").ThrowAsJavaScriptException();
        return Napi::Value();
    }
    int64_t *cell = (int64_t *)(void *)((char *)block.Data() + (size_t)offset);
    __atomic_store_n(cell, __atomic_load_n(cell, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    return info.Env().Undefined();
}

static void respite_node_gate_export(Napi::Env env, Napi::Object exports)
{
    exports.Set("respite_node_fast_path", Napi::Function::New(env, respite_node_fast_path));
    exports.Set("respite_node_fast_carry", Napi::Function::New(env, respite_node_fast_carry));
    exports.Set("respite_node_gate_token", Napi::Function::New(env, respite_node_gate_token));
    exports.Set("respite_node_gate_admit", Napi::Function::New(env, respite_node_gate_admit));
    exports.Set("respite_node_gate_report", Napi::Function::New(env, respite_node_gate_report));
}

#endif /* RESPITE_NODE_GATE_H */

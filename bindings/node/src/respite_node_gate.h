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

#include <math.h>

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

/* `now` at info[index]: undefined is the core's clock (the _now calls,
 * which read it only when the answer depends on it); NaN for a non-number,
 * which the core refuses as invalid_time. */
static bool respite_node_now_arg(const Napi::CallbackInfo &info, size_t index, double *now)
{
    if (info[index].IsUndefined())
        return false;
    *now = info[index].IsNumber() ? info[index].As<Napi::Number>().DoubleValue() : NAN;
    return true;
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
    int64_t permit = respite_node_now_arg(info, 1, &now) ? respite_gate_admit(gate, now, &err)
                                                         : respite_gate_admit_now(gate, &err);
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
    if (!info[1].IsNumber() || !info[2].IsNumber() || !info[3].IsNumber()) {
        Napi::TypeError::New(info.Env(), "permit, outcome and retry_after_hint must be numbers")
            .ThrowAsJavaScriptException();
        return Napi::Value();
    }
    int64_t permit = info[1].As<Napi::Number>().Int64Value();
    int outcome = info[2].As<Napi::Number>().Int32Value();
    double hint = info[3].As<Napi::Number>().DoubleValue();
    respite_error err;
    err.status = RESPITE_OK;
    double now;
    if (respite_node_now_arg(info, 4, &now))
        respite_gate_report(gate, permit, outcome, hint, now, &err);
    else
        respite_gate_report_now(gate, permit, outcome, hint, &err);
    if (err.status != RESPITE_OK) {
        respite_node_throw(info.Env(), &err);
        return Napi::Value();
    }
    return Napi::Number::New(info.Env(), respite_gate_events_pending(gate));
}

/* respite_node_gate_events_pending(gate): respite_gate_events_pending. */
static Napi::Value respite_node_gate_events_pending(const Napi::CallbackInfo &info)
{
    respite_gate *gate;
    if (!respite_node_gate_arg(info, &gate))
        return Napi::Value();
    return Napi::Number::New(info.Env(), respite_gate_events_pending(gate));
}

static void respite_node_gate_export(Napi::Env env, Napi::Object exports)
{
    exports.Set("respite_node_gate_token", Napi::Function::New(env, respite_node_gate_token));
    exports.Set("respite_node_gate_admit", Napi::Function::New(env, respite_node_gate_admit));
    exports.Set("respite_node_gate_report", Napi::Function::New(env, respite_node_gate_report));
    exports.Set("respite_node_gate_events_pending", Napi::Function::New(env, respite_node_gate_events_pending));
}

#endif /* RESPITE_NODE_GATE_H */

/*
 * fast_native.c - Gate's admit0 and report0, by hand so that each is one JNI
 * crossing: `clock` selects the core's *_now forms (else the caller's `now`), a
 * refusal is thrown from admit's own err, and the events rule runs here (when
 * events are pending after the call, the Gate's pollEvents() takes them).
 */
#include "respite_jni.h"

static void after_gate_call(JNIEnv *env, jobject owner, const respite_gate *gate, const respite_error *err)
{
    if (respite_gate_events_pending(gate) > 0) {
        static jmethodID poll;
        jmethodID method = __atomic_load_n(&poll, __ATOMIC_RELAXED);
        if (!method) {
            jclass type = (*env)->GetObjectClass(env, owner);
            method = (*env)->GetMethodID(env, type, "pollEvents", "()Ljava/util/List;");
            if (!method)
                return;
            __atomic_store_n(&poll, method, __ATOMIC_RELAXED);
        }
        (*env)->DeleteLocalRef(env, (*env)->CallObjectMethod(env, owner, method));
        if ((*env)->ExceptionCheck(env))
            return;
    }
    if (err->status != RESPITE_OK)
        respite_jni_throw(env, err);
}

/* The permit; 0 when refused and !raise; else the refusal or error is thrown. */
JNIEXPORT jlong JNICALL Java_org_respite_Gate_admit0(JNIEnv *env, jobject owner, jlong pointer, jboolean clock,
                                                     jdouble now, jboolean raise)
{
    respite_error err;
    respite_error_clear(&err);
    respite_gate *gate = (respite_gate *)(intptr_t)pointer;
    int64_t permit = clock ? respite_gate_admit_now(gate, &err) : respite_gate_admit(gate, now, &err);
    if (permit == 0 && !raise)
        err.status = RESPITE_OK;
    after_gate_call(env, owner, gate, &err);
    return (jlong)permit;
}

JNIEXPORT void JNICALL Java_org_respite_Gate_report0(JNIEnv *env, jobject owner, jlong pointer, jlong permit,
                                                     jint outcome, jdouble hint, jboolean clock, jdouble now)
{
    respite_error err;
    respite_error_clear(&err);
    respite_gate *gate = (respite_gate *)(intptr_t)pointer;
    if (clock)
        respite_gate_report_now(gate, permit, outcome, hint, &err);
    else
        respite_gate_report(gate, permit, outcome, hint, now, &err);
    after_gate_call(env, owner, gate, &err);
}

/* A direct ByteBuffer over `size` bytes of the core's memory at `address`
 * (the fast-path protocol's words and counter blocks, spec K1-K5). */
JNIEXPORT jobject JNICALL Java_org_respite_internal_NativeWords_buffer0(JNIEnv *env, jclass type, jlong address, jint size)
{
    (void)type;
    return (*env)->NewDirectByteBuffer(env, (void *)(intptr_t)address, size);
}

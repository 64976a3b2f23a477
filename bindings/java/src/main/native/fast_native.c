/*
 * fast_native.c - hand-written JNI entry points of org.respite.internal.FastNative.
 * SWIG's wrappers stay the raw layer; these exist where SWIG costs or cannot
 * express something: payload bytes that may hold NULs, and the protected
 * call's admit/report reading the core's clock on the C side (one crossing
 * each, no clock read in Java). Errors are thrown as SWIG's are:
 * RuntimeException("<status_name>: <message>").
 */
#include <jni.h>
#include <stdio.h>

#include "respite.h"

static void throw_error(JNIEnv *env, const respite_error *err)
{
    char text[RESPITE_ERROR_MESSAGE_MAX + 64];
    snprintf(text, sizeof text, "%s: %s", respite_status_name(err->status),
             err->message[0] ? err->message : respite_strerror(err->status));
    jclass type = (*env)->FindClass(env, "java/lang/RuntimeException");
    if (type)
        (*env)->ThrowNew(env, type, text);
}

static inline void error_init(respite_error *err)
{
    err->status = RESPITE_OK;
    err->message[0] = '\0';
}

JNIEXPORT jbyteArray JNICALL Java_org_respite_internal_FastNative_batchPayload(JNIEnv *env, jclass type,
                                                                               jlong batch, jint index)
{
    (void)type;
    respite_error err;
    error_init(&err);
    const respite_batch *b = (const respite_batch *)(intptr_t)batch;
    int64_t size = respite_batch_event_size(b, index, &err);
    const char *data = size < 0 ? NULL : respite_batch_event_text(b, index, &err);
    if (!data) {
        throw_error(env, &err);
        return NULL;
    }
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)size);
    if (bytes)
        (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)size, (const jbyte *)data);
    return bytes;
}

JNIEXPORT jlong JNICALL Java_org_respite_internal_FastNative_gateAdmitNow(JNIEnv *env, jclass type, jlong gate)
{
    (void)type;
    respite_error err;
    error_init(&err);
    int64_t permit = respite_gate_admit((respite_gate *)(intptr_t)gate, respite_now(), &err);
    if (permit < 0)
        throw_error(env, &err);
    return (jlong)permit;
}

JNIEXPORT void JNICALL Java_org_respite_internal_FastNative_gateReportNow(JNIEnv *env, jclass type, jlong gate,
                                                                       jlong permit, jint outcome)
{
    (void)type;
    respite_error err;
    error_init(&err);
    if (respite_gate_report((respite_gate *)(intptr_t)gate, permit, outcome, 0.0, respite_now(), &err))
        throw_error(env, &err);
}

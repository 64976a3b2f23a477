/*
 * fast_native.c - hand-written JNI entry points of org.respite.internal.FastNative.
 * SWIG's wrappers stay the raw layer; these exist where SWIG costs or cannot
 * express something: payload bytes that may hold NULs, and the protected
 * call's admit/report through respite_gate_admit_now/report_now (one
 * crossing each; the core reads its clock only when the gate is not closed,
 * so a closed gate's call reads no clock at all). Errors are thrown as SWIG's are:
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
    int64_t permit = respite_gate_admit_now((respite_gate *)(intptr_t)gate, &err);
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
    if (respite_gate_report_now((respite_gate *)(intptr_t)gate, permit, outcome, 0.0, &err))
        throw_error(env, &err);
}

/* -------------------------------------------------------------------- HTTP */

/* A refusal carries retry_after, which SWIG's "<status>: <message>" loses:
 * thrown here as org.respite.TemporarilyUnavailableException directly. */
static void throw_with_retry_after(JNIEnv *env, const respite_error *err)
{
    if (err->status != RESPITE_E_TEMPORARILY_UNAVAILABLE) {
        throw_error(env, err);
        return;
    }
    jclass type = (*env)->FindClass(env, "org/respite/TemporarilyUnavailableException");
    if (!type)
        return;
    jmethodID make = (*env)->GetMethodID(env, type, "<init>", "(DLjava/lang/String;)V");
    jstring message = make ? (*env)->NewStringUTF(env, err->message) : NULL;
    if (!message)
        return;
    jobject thrown = (*env)->NewObject(env, type, make, (jdouble)err->retry_after, message);
    if (thrown)
        (*env)->Throw(env, (jthrowable)thrown);
}

/* Modified UTF-8 of a Java string, or NULL for a null string. */
static const char *chars_of(JNIEnv *env, jstring text)
{
    return text ? (*env)->GetStringUTFChars(env, text, NULL) : NULL;
}

static void release_chars(JNIEnv *env, jstring text, const char *chars)
{
    if (text && chars)
        (*env)->ReleaseStringUTFChars(env, text, chars);
}

JNIEXPORT jlong JNICALL Java_org_respite_internal_FastNative_clientRequest(JNIEnv *env, jclass type, jlong client,
                                                                         jstring method, jstring url,
                                                                         jstring headers, jbyteArray body)
{
    (void)type;
    respite_error err;
    error_init(&err);
    const char *method_chars = chars_of(env, method);
    const char *url_chars = chars_of(env, url);
    const char *header_chars = chars_of(env, headers);
    jsize size = body ? (*env)->GetArrayLength(env, body) : 0;
    jbyte *data = body ? (*env)->GetByteArrayElements(env, body, NULL) : NULL;
    respite_response *response = NULL;
    if ((!method || method_chars) && (!url || url_chars) && (!headers || header_chars) && (!body || data)) {
        /* The call may last seconds (timeouts, back-off sleeps): no JNI
         * critical section is held, only copies. */
        response = respite_client_request((respite_client *)(intptr_t)client, method_chars, url_chars,
                                          header_chars, data ? (const char *)data : (size ? NULL : ""),
                                          (size_t)size, &err);
        if (!response)
            throw_with_retry_after(env, &err);
    }
    if (data)
        (*env)->ReleaseByteArrayElements(env, body, data, JNI_ABORT);
    release_chars(env, headers, header_chars);
    release_chars(env, url, url_chars);
    release_chars(env, method, method_chars);
    return (jlong)(intptr_t)response;
}

JNIEXPORT jbyteArray JNICALL Java_org_respite_internal_FastNative_responseBody(JNIEnv *env, jclass type,
                                                                               jlong response)
{
    (void)type;
    const respite_response *r = (const respite_response *)(intptr_t)response;
    int64_t size = respite_response_body_size(r);
    const char *data = respite_response_body(r);
    if (size < 0 || !data)
        size = 0;
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)size);
    if (bytes && size > 0)
        (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)size, (const jbyte *)data);
    return bytes;
}

JNIEXPORT void JNICALL Java_org_respite_internal_FastNative_senderFlush(JNIEnv *env, jclass type, jlong sender,
                                                                      jdouble timeout_seconds)
{
    (void)type;
    respite_error err;
    error_init(&err);
    if (respite_sender_flush((respite_sender *)(intptr_t)sender, timeout_seconds, &err))
        throw_with_retry_after(env, &err);
}

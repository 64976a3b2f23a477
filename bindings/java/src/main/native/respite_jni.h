/*
 * respite_jni.h - what every JNI entry point shares (SWIG's wrapper through
 * swig/java.i, and fast_native.c): text as real UTF-8 in byte[] (JNI's own
 * string functions speak modified UTF-8, which breaks 4-byte characters),
 * and the core's error fields thrown as the exception of their status.
 */
#ifndef RESPITE_JNI_H
#define RESPITE_JNI_H

#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"

/* A NUL-terminated copy of a byte[] of UTF-8; NULL for null, or NULL with
 * OutOfMemoryError pending. Free with free(). */
static inline char *respite_jni_chars(JNIEnv *env, jbyteArray bytes)
{
    if (!bytes)
        return NULL;
    jsize size = (*env)->GetArrayLength(env, bytes);
    char *chars = malloc((size_t)size + 1);
    if (!chars) {
        jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
        if (oom)
            (*env)->ThrowNew(env, oom, "respite: no memory for a string");
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, bytes, 0, size, (jbyte *)chars);
    chars[size] = '\0';
    return chars;
}

/* size bytes of data (up to its NUL when size < 0) as a byte[]; null for NULL. */
static inline jbyteArray respite_jni_bytes(JNIEnv *env, const char *data, int64_t size)
{
    if (!data)
        return NULL;
    if (size < 0)
        size = (int64_t)strlen(data);
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)size);
    if (bytes && size > 0)
        (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)size, (const jbyte *)data);
    return bytes;
}

/* Throws the exception of err's status, made by the generated
 * org.respite.RespiteException.fromNative from the fields (status, message,
 * setting, retry_after). */
static inline void respite_jni_throw_problems(JNIEnv *env, const respite_error *err,
                                              const respite_problems *problems)
{
    static jclass errors;
    static jmethodID raise;
    jclass cls = __atomic_load_n(&errors, __ATOMIC_ACQUIRE);
    if (!cls) {
        jclass local = (*env)->FindClass(env, "org/respite/RespiteException");
        jmethodID method = local ? (*env)->GetStaticMethodID(env, local, "fromNative",
                                                             "(I[B[BDJ)Lorg/respite/RespiteException;")
                                 : NULL;
        if (!method)
            return;
        cls = (*env)->NewGlobalRef(env, local);
        __atomic_store_n(&raise, method, __ATOMIC_RELAXED);
        __atomic_store_n(&errors, cls, __ATOMIC_RELEASE);
    }
    jbyteArray message = respite_jni_bytes(env, err->message[0] ? err->message : respite_strerror(err->status), -1);
    jbyteArray setting = message ? respite_jni_bytes(env, err->setting, -1) : NULL;
    jobject thrown = setting ? (*env)->CallStaticObjectMethod(env, cls, __atomic_load_n(&raise, __ATOMIC_RELAXED),
                                                              (jint)err->status, message, setting,
                                                              (jdouble)err->retry_after,
                                                              (jlong)(intptr_t)problems)
                             : NULL;
    if (thrown && !(*env)->ExceptionCheck(env))
        (*env)->Throw(env, (jthrowable)thrown);
}

static inline void respite_jni_throw(JNIEnv *env, const respite_error *err)
{
    respite_jni_throw_problems(env, err, NULL);
}

/* E15: text crosses with its length. 1 when the byte[] (or null) holds no
 * NUL; otherwise the core's invalid_argument is thrown and 0 returned, never
 * text cut at the NUL. Nothing is copied, so a caller may return at once. */
static inline int respite_jni_text_ok(JNIEnv *env, jbyteArray bytes, const char *what)
{
    if (!bytes)
        return 1;
    jsize size = (*env)->GetArrayLength(env, bytes);
    void *data = (*env)->GetPrimitiveArrayCritical(env, bytes, NULL);
    if (!data)
        return 0; /* OutOfMemoryError pending */
    respite_error err;
    int status = respite_text_check(data, (size_t)size, what, &err);
    (*env)->ReleasePrimitiveArrayCritical(env, bytes, data, JNI_ABORT);
    if (status == RESPITE_OK)
        return 1;
    respite_jni_throw(env, &err);
    return 0;
}

#endif /* RESPITE_JNI_H */

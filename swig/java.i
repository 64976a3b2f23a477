/*
 * java.i - the raw JNI module for org.respite (package org.respite.swig).
 * Only Java specifics live here; everything else is respite.i.
 */
%module RespiteNative

%{
#include "respite_jni.h"
%}

/* The raw classes load the JNI library themselves, from the jar, so users
 * never set java.library.path. */
%pragma(java) jniclasscode=%{
  static {
    org.respite.internal.NativeLoader.load();
  }
%}
%pragma(java) jniclassclassmodifiers="public final class"
%pragma(java) moduleclassmodifiers="public final class"
SWIG_JAVABODY_PROXY(public, public, SWIGTYPE)

/* Errors: the core's fields become the exception of their status
 * (RespiteException.fromNative, generated); no text is parsed. The exception is
 * left pending so freearg still releases the arguments. */
%typemap(argout) respite_error *err {
    if ($1->status != 0)
        respite_jni_throw(jenv, $1);
}
/* A policy's problems (respite.i) go on InvalidPolicyException.getProblems(). */
%typemap(argout) (respite_problems *problems, respite_error *err) {
    if ($2->status != 0) {
        respite_jni_throw_problems(jenv, $2, $1);
        respite_problems_free($1);
        $1 = NULL;
    }
}
%ignore respite_error;

/* Handles are plain pointers (long) in the module class too: the idiomatic
 * layer owns their lifetimes (org.respite.internal.NativeHandle). */
%define RESPITE_HANDLE(TYPE)
%typemap(jstype) TYPE *, const TYPE * "long"
%typemap(javain) TYPE *, const TYPE * "$javainput"
%typemap(javaout) TYPE *, const TYPE * { return $jnicall; }
%enddef
RESPITE_HANDLE(respite_settings)
RESPITE_HANDLE(respite_gate)
RESPITE_HANDLE(respite_backoff)
RESPITE_HANDLE(respite_problems)
RESPITE_HANDLE(respite_policy)
RESPITE_HANDLE(respite_policy_builder)
RESPITE_HANDLE(respite_queue)
RESPITE_HANDLE(respite_batch)
RESPITE_HANDLE(respite_engine)
RESPITE_HANDLE(respite_client)
RESPITE_HANDLE(respite_response)
RESPITE_HANDLE(respite_sender)
RESPITE_HANDLE(respite_fleet_gate)
RESPITE_HANDLE(respite_metrics)
RESPITE_HANDLE(respite_cancel_token)

/* Text is real UTF-8 both ways (JNI's own string functions speak modified
 * UTF-8, which breaks 4-byte characters): byte[] across JNI, converted with
 * StandardCharsets.UTF_8 in Java (org.respite.internal.Utf8). */
%typemap(jni) char *, char[ANY] "jbyteArray"
%typemap(jtype) char *, char[ANY] "byte[]"
%typemap(jstype) char *, char[ANY] "String"
%typemap(javain) char *, char[ANY] "org.respite.internal.Utf8.bytes($javainput)"
%typemap(javaout) char *, char[ANY] { return org.respite.internal.Utf8.string($jnicall); }
/* A NUL inside is refused by the core (E15) before any argument is copied:
 * the early return then leaks nothing. The copy is made in check, after
 * every argument's in. */
%typemap(in, noblock=1) char *, char[ANY] {
    if (!respite_jni_text_ok(jenv, $input, "$1_name")) return $null;
}
%typemap(check, noblock=1) char *, char[ANY] {
    $1 = ($1_ltype)respite_jni_chars(jenv, $input);
    if ($input && !$1) return $null;
}
%typemap(freearg, noblock=1) char *, char[ANY] { free((void *)$1); }
%typemap(out, noblock=1) char *, char[ANY] { $result = respite_jni_bytes(jenv, (const char *)$1, -1); }
%immutable respite_event::source;

/* A text buffer (char *buf, size_t size; respite.i) comes back as its text, not the length it needed. */
%typemap(argout) (char *buf, size_t size) { $result = respite_jni_bytes(jenv, $1, -1); }
%typemap(freearg) (char *buf, size_t size) ""
%typemap(check) (char *buf, size_t size) ""
%define RESPITE_RETURNS_TEXT(function)
%typemap(jni) size_t function "jbyteArray"
%typemap(jtype) size_t function "byte[]"
%typemap(jstype) size_t function "String"
%typemap(javaout) size_t function { return org.respite.internal.Utf8.string($jnicall); }
%typemap(out) size_t function ""
%enddef
RESPITE_RETURNS_TEXT(respite_refusal_message)
RESPITE_RETURNS_TEXT(respite_event_message)

/* Payloads are bytes: byte[] in Java, any content, NUL included (SWIG's own
 * (STRING, LENGTH) typemap would encode a String with the platform charset). */
%typemap(jstype) (const char *STRING, size_t LENGTH), (char *STRING, size_t LENGTH) "byte[]"
%typemap(javain) (const char *STRING, size_t LENGTH), (char *STRING, size_t LENGTH) "$javainput"
%typemap(check) (const char *STRING, size_t LENGTH), (char *STRING, size_t LENGTH) ""
%apply (const char *STRING, size_t LENGTH) { (const char *data, size_t size), (const char *json, size_t length) };

/* A batch event's payload and a response's body come out as every byte. */
%typemap(jstype) const char *respite_batch_event_text, const char *respite_response_body "byte[]"
%typemap(javaout) const char *respite_batch_event_text, const char *respite_response_body { return $jnicall; }
%typemap(out, noblock=1) const char *respite_batch_event_text {
    $result = respite_jni_bytes(jenv, $1, $1 ? respite_batch_event_size(arg1, arg2, NULL) : 0);
}
%typemap(out, noblock=1) const char *respite_response_body {
    $result = respite_jni_bytes(jenv, $1, respite_response_body_size(arg1));
}

%include "respite.i"

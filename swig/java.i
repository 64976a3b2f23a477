/*
 * java.i - the raw JNI module for org.respite (package org.respite.swig).
 * Only Java specifics live here; everything else is respite.i.
 */
%module RespiteNative

/* The raw classes load the JNI library themselves, from the jar, so users
 * never set java.library.path. */
%pragma(java) jniclasscode=%{
  static {
    org.respite.internal.NativeLoader.load();
  }
%}

/* Generated classes are public API of the raw package only. */
%pragma(java) jniclassclassmodifiers="public final class"
%pragma(java) moduleclassmodifiers="public final class"

/* The idiomatic layer keeps handles as plain pointers (long) and calls
 * RespiteNativeJNI directly on hot paths; it needs getCPtr and the pointer
 * constructors to be public. */
SWIG_JAVABODY_PROXY(public, public, SWIGTYPE)
SWIG_JAVABODY_TYPEWRAPPER(public, public, public, SWIGTYPE)

/* Payloads are bytes: byte[] in Java, any content, NUL included. */
%include "various.i"
%apply (char *STRING, size_t LENGTH) { (const char *data, size_t size) };
%apply (char *STRING, size_t LENGTH) { (const char *json, size_t length) };

/* Text the core allocates for the caller: copied into a String, then freed. */
%typemap(newfree) char * "respite_free_string($1);";
%newobject respite_policy_to_json;

/* Functions that fill a caller's text buffer (char *buf, size_t size)
 * return the text as a String instead of the length it needed. */
%typemap(in, numinputs=0) (char *buf, size_t size) (char temp[1024]) {
    temp[0] = '\0';
    $1 = temp;
    $2 = sizeof temp;
}
%typemap(argout) (char *buf, size_t size) {
    $result = JCALL1(NewStringUTF, jenv, $1);
}
%define RESPITE_RETURNS_TEXT(function)
%typemap(jni) size_t function "jstring"
%typemap(jtype) size_t function "String"
%typemap(jstype) size_t function "String"
%typemap(javaout) size_t function { return $jnicall; }
%typemap(out) size_t function ""
%enddef
RESPITE_RETURNS_TEXT(respite_refusal_message)
RESPITE_RETURNS_TEXT(respite_event_message)

%include "respite.i"

/* respite_php.h - the hand-written C of the respite PHP extension, beside
 * the SWIG wrapper of swig/php.i (which defines the first two). */
#ifndef RESPITE_PHP_H
#define RESPITE_PHP_H

#include "php.h"

#include "respite.h"

/* Throws the Respite\ exception for a filled respite_error (its class from
 * the status, RespiteException::fromError). */
void respite_php_throw(const respite_error *err);
/* The respite_gate of a raw handle (SWIG's object, or null once closed):
 * 0, or -1 with a TypeError thrown when `value` is something else. */
int respite_php_gate_ptr(zval *value, respite_gate **gate);
/* Registers the class Respite\Internal\NativeGate, Gate::call in C
 * (ext/gate_call.c); called once from the module's startup. */
void respite_php_gate_call_register(void);

#endif

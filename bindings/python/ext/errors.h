/* errors.h - the exception of a call that reports a policy's problems
 * (swig/python.i's typemap for (respite_problems *problems, respite_error *err)). */
#ifndef RESPITE_PY_ERRORS_H
#define RESPITE_PY_ERRORS_H

#include "respite_py.h"

/* As respite_py_raise, the exception carrying every problem (InvalidPolicyError.problems). */
PyObject *respite_py_raise_problems(const respite_error *err, const respite_problems *problems);

#endif

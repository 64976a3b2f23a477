# Finds the one SWIG every binding is generated with: the version that
# scripts/setup.d/swig.sh installs (override with -DSWIG_EXECUTABLE=...).
set(RESPITE_SWIG_VERSION 4.5.1)
# A build directory configured before the pin may cache another SWIG.
if(SWIG_EXECUTABLE)
  execute_process(COMMAND ${SWIG_EXECUTABLE} -version OUTPUT_VARIABLE _respite_swig_said ERROR_QUIET)
  if(NOT _respite_swig_said MATCHES "SWIG Version ${RESPITE_SWIG_VERSION}")
    unset(SWIG_EXECUTABLE CACHE)
    unset(SWIG_DIR CACHE)
    unset(SWIG_VERSION CACHE)
  endif()
endif()
if(NOT SWIG_EXECUTABLE)
  if(DEFINED ENV{RESPITE_TOOLS})
    set(_respite_tools $ENV{RESPITE_TOOLS})
  elseif(DEFINED ENV{XDG_CACHE_HOME})
    set(_respite_tools $ENV{XDG_CACHE_HOME}/respite)
  else()
    set(_respite_tools $ENV{HOME}/.cache/respite)
  endif()
  find_program(SWIG_EXECUTABLE swig
    HINTS ${_respite_tools}/swig-${RESPITE_SWIG_VERSION}/bin NO_DEFAULT_PATH)
endif()
if(NOT SWIG_EXECUTABLE)
  message(FATAL_ERROR "SWIG ${RESPITE_SWIG_VERSION} not found: run scripts/setup.d/swig.sh (or pass -DSWIG_EXECUTABLE=...)")
endif()
# Then: find_package(SWIG ${RESPITE_SWIG_VERSION} EXACT REQUIRED [COMPONENTS lang]).

# respite/version.h's RESPITE_VERSION_MAJOR/MINOR/PATCH must equal
# project(VERSION): C programs see the one, packages the other.
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/core/include/respite/version.h RESPITE_VERSION_LINES
     REGEX "^#define RESPITE_VERSION_(MAJOR|MINOR|PATCH) [0-9]+$")
foreach(line ${RESPITE_VERSION_LINES})
  string(REGEX MATCH "(MAJOR|MINOR|PATCH) ([0-9]+)" _ "${line}")
  set(RESPITE_HEADER_VERSION_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
endforeach()
set(RESPITE_HEADER_VERSION
    "${RESPITE_HEADER_VERSION_MAJOR}.${RESPITE_HEADER_VERSION_MINOR}.${RESPITE_HEADER_VERSION_PATCH}")
if(NOT RESPITE_HEADER_VERSION STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "core/include/respite/version.h says ${RESPITE_HEADER_VERSION}, project() says ${PROJECT_VERSION}: make them equal")
endif()

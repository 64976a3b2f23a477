# Installs the C libraries so other projects use them without this checkout:
# headers, shared and static libraries, the CMake package respite
# (find_package(respite) -> respite::respite, respite::http, respite::fleet
# and their _static twins) and pkg-config files respite.pc /
# respite-http.pc / respite-fleet.pc.
include(CMakePackageConfigHelpers)

set(RESPITE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/respite)
set_target_properties(respite PROPERTIES EXPORT_NAME respite)
set_target_properties(respite_static PROPERTIES EXPORT_NAME respite_static)
set(RESPITE_INSTALLED respite respite_static)
if(TARGET respite_http)
  set_target_properties(respite_http PROPERTIES EXPORT_NAME http)
  set_target_properties(respite_http_static PROPERTIES EXPORT_NAME http_static)
  list(APPEND RESPITE_INSTALLED respite_http respite_http_static)
  set(RESPITE_HAS_HTTP ON)
else()
  set(RESPITE_HAS_HTTP OFF)
endif()
if(TARGET respite_fleet)
  set_target_properties(respite_fleet PROPERTIES EXPORT_NAME fleet)
  set_target_properties(respite_fleet_static PROPERTIES EXPORT_NAME fleet_static)
  list(APPEND RESPITE_INSTALLED respite_fleet respite_fleet_static)
  set(RESPITE_HAS_FLEET ON)
else()
  set(RESPITE_HAS_FLEET OFF)
endif()

install(TARGETS ${RESPITE_INSTALLED} EXPORT respiteTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT respiteTargets NAMESPACE respite:: DESTINATION ${RESPITE_CMAKE_DIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/respiteConfig.cmake.in
  ${PROJECT_BINARY_DIR}/respiteConfig.cmake INSTALL_DESTINATION ${RESPITE_CMAKE_DIR})
# 0.x: a minor release may break the API, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/respiteConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/respiteConfig.cmake ${PROJECT_BINARY_DIR}/respiteConfigVersion.cmake
  DESTINATION ${RESPITE_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own directory, so an
# installed tree can be moved.
file(RELATIVE_PATH RESPITE_PC_PREFIX_FROM_PCDIR ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" RESPITE_PC_PREFIX_FROM_PCDIR "${RESPITE_PC_PREFIX_FROM_PCDIR}")
set(RESPITE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(RESPITE_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(RESPITE_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(RESPITE_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(RESPITE_PC_FILES respite)
if(RESPITE_HAS_HTTP)
  list(APPEND RESPITE_PC_FILES respite-http)
endif()
if(RESPITE_HAS_FLEET)
  list(APPEND RESPITE_PC_FILES respite-fleet)
endif()
foreach(pc ${RESPITE_PC_FILES})
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

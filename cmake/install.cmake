# install: headers, both libraries, a CMake package (find_package(cdyn) -> cdyn::cdyn and
# cdyn::cdyn_static) and cdyn.pc for pkg-config.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/cdyn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/cdyn/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cdyn)
install(TARGETS cdyn cdyn_static EXPORT cdynTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(CDYN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cdyn)
install(EXPORT cdynTargets NAMESPACE cdyn:: DESTINATION ${CDYN_CMAKE_DIR})
configure_package_config_file(cmake/cdynConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cdynConfig.cmake INSTALL_DESTINATION ${CDYN_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cdynConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cdynConfig.cmake
  ${PROJECT_BINARY_DIR}/cdynConfigVersion.cmake
  cmake/cdynDependencies.cmake
  DESTINATION ${CDYN_CMAKE_DIR})

# The prefix is found relative to the .pc file, so `cmake --install --prefix P` works for any P.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CDYN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _rel "/x/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/x")
  string(REGEX REPLACE "/$" "" _rel "${_rel}")
  set(CDYN_PC_PREFIX "\${pcfiledir}/${_rel}")
endif()
configure_file(cmake/cdyn.pc.in ${PROJECT_BINARY_DIR}/cdyn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cdyn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Finds cdyn's Debian dependencies and defines imported targets for them:
#   cdyn::suitesparse  CHOLMOD, KLU and their ordering/config libraries
#   cdyn::lapack       LAPACKE + OpenBLAS (CBLAS)
#   cdyn::fclib        FCLib + HDF5 (optional: the FCLib reader of cdyn/fc3d.h)
#   cdyn::libxml2      libxml2 (the URDF loader of cdyn/urdf.h)
# and Threads::Threads (POSIX threads: the design layer's parallel evaluations).
# Used both by the build and by the installed cdynConfig.cmake (static consumers need it).
# SuiteSparse 5.x on Debian ships neither CMake packages nor pkg-config files, so the
# libraries are located directly.

include_guard(GLOBAL)

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

if(NOT TARGET cdyn::suitesparse)
  find_path(CDYN_SUITESPARSE_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
  set(_cdyn_ss_libs)
  foreach(_lib cholmod klu btf amd camd colamd ccolamd suitesparseconfig)
    find_library(CDYN_${_lib}_LIBRARY ${_lib})
    if(NOT CDYN_${_lib}_LIBRARY)
      message(FATAL_ERROR "cdyn: SuiteSparse library '${_lib}' not found (Debian: libsuitesparse-dev)")
    endif()
    list(APPEND _cdyn_ss_libs ${CDYN_${_lib}_LIBRARY})
  endforeach()
  if(NOT CDYN_SUITESPARSE_INCLUDE_DIR)
    message(FATAL_ERROR "cdyn: cholmod.h not found (Debian: libsuitesparse-dev)")
  endif()
  add_library(cdyn::suitesparse INTERFACE IMPORTED)
  set_target_properties(cdyn::suitesparse PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CDYN_SUITESPARSE_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${_cdyn_ss_libs}")
endif()

if(NOT TARGET cdyn::lapack)
  find_path(CDYN_LAPACKE_INCLUDE_DIR lapacke.h)
  find_path(CDYN_CBLAS_INCLUDE_DIR cblas.h
    PATH_SUFFIXES openblas-pthread x86_64-linux-gnu/openblas-pthread openblas)
  find_library(CDYN_LAPACKE_LIBRARY lapacke)
  find_library(CDYN_OPENBLAS_LIBRARY openblas
    PATH_SUFFIXES openblas-pthread x86_64-linux-gnu/openblas-pthread)
  foreach(_v CDYN_LAPACKE_INCLUDE_DIR CDYN_CBLAS_INCLUDE_DIR CDYN_LAPACKE_LIBRARY CDYN_OPENBLAS_LIBRARY)
    if(NOT ${_v})
      message(FATAL_ERROR "cdyn: ${_v} not found (Debian: liblapacke-dev libopenblas-dev)")
    endif()
  endforeach()
  add_library(cdyn::lapack INTERFACE IMPORTED)
  set_target_properties(cdyn::lapack PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CDYN_LAPACKE_INCLUDE_DIR};${CDYN_CBLAS_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${CDYN_LAPACKE_LIBRARY};${CDYN_OPENBLAS_LIBRARY};m")
endif()

# libxml2 (Debian libxml2-dev) through CMake's FindLibXml2 (pkg-config's libxml-2.0 underneath).
if(NOT TARGET cdyn::libxml2)
  find_package(LibXml2 QUIET)
  if(NOT LibXml2_FOUND)
    message(FATAL_ERROR "cdyn: libxml2 not found (Debian: libxml2-dev)")
  endif()
  add_library(cdyn::libxml2 INTERFACE IMPORTED)
  set_target_properties(cdyn::libxml2 PROPERTIES INTERFACE_LINK_LIBRARIES LibXml2::LibXml2)
endif()

# FCLib (Debian libfclib-dev) and the HDF5 it is built on, optional. The build looks for them
# unless CDYN_WITH_FCLIB is OFF and goes without when they are missing; the installed
# cdynConfig.cmake sets CDYN_FCLIB_REQUIRED to whether the library was built with them.
# Located directly, like SuiteSparse: FCLib's own CMake package links static libpthread/libdl.
if(NOT TARGET cdyn::fclib AND (CDYN_FCLIB_REQUIRED OR (NOT DEFINED CDYN_FCLIB_REQUIRED
    AND (NOT DEFINED CDYN_WITH_FCLIB OR CDYN_WITH_FCLIB))))
  find_path(CDYN_FCLIB_INCLUDE_DIR fclib.h)
  find_library(CDYN_FCLIB_LIBRARY fclib)
  find_path(CDYN_HDF5_INCLUDE_DIR hdf5.h PATH_SUFFIXES hdf5/serial)
  find_library(CDYN_HDF5_LIBRARY NAMES hdf5_serial hdf5 PATH_SUFFIXES hdf5/serial)
  if(CDYN_FCLIB_INCLUDE_DIR AND CDYN_FCLIB_LIBRARY AND CDYN_HDF5_INCLUDE_DIR AND CDYN_HDF5_LIBRARY)
    add_library(cdyn::fclib INTERFACE IMPORTED)
    set_target_properties(cdyn::fclib PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${CDYN_FCLIB_INCLUDE_DIR};${CDYN_HDF5_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${CDYN_FCLIB_LIBRARY};${CDYN_HDF5_LIBRARY}")
  elseif(CDYN_FCLIB_REQUIRED)
    message(FATAL_ERROR "cdyn was built with FCLib: fclib.h/libfclib or HDF5 not found "
      "(Debian: libfclib-dev libhdf5-dev)")
  endif()
endif()

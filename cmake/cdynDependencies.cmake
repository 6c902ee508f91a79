# Finds cdyn's Debian dependencies and defines imported targets for them:
#   cdyn::suitesparse  CHOLMOD, KLU and their ordering/config libraries
#   cdyn::lapack       LAPACKE + OpenBLAS (CBLAS)
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

# Friction-cone QP benchmark: cost of the sparse (CHOLMOD) path against the number of contacts.
# Needs no peer library. Included from bench/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/CMakeLists-coneqp.cmake)
# Run: OPENBLAS_NUM_THREADS=1 <build>/bench/bench_coneqp [--sizes 1,10,100,1000,5000] [--disk]
add_executable(bench_coneqp ${CMAKE_CURRENT_LIST_DIR}/bench_coneqp.c)
target_link_libraries(bench_coneqp PRIVATE cdyn_static m)

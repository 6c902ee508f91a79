# ctest -P script: run EXE and compare its standard output (trailing white space stripped) with
# EXPECTED, the output a documentation page shows for it.
execute_process(COMMAND ${EXE} OUTPUT_VARIABLE out RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} exited with ${rc}")
endif()
if(NOT out STREQUAL EXPECTED)
  message(FATAL_ERROR "the program prints\n  ${out}\nthe page shows\n  ${EXPECTED}")
endif()

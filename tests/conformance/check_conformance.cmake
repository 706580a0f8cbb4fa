# Runs the conformance suite and fails unless at least MIN_PASS cases pass.
execute_process(COMMAND ${EXE} conformance ${ROOT} --json ${JSON}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}")
string(REGEX MATCH "([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped" summary "${out}")
if(NOT summary)
  message(FATAL_ERROR "conformance produced no summary line (exit ${rc}):\n${err}")
endif()
set(passed ${CMAKE_MATCH_1})
if(passed LESS MIN_PASS)
  message(FATAL_ERROR "conformance: ${passed} cases passed, below the threshold of ${MIN_PASS}")
endif()
message("conformance: ${passed} passed (threshold ${MIN_PASS})")

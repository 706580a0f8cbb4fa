# Runs the conformance suite (with extra ARGS, e.g. --devices/--policy/
# --same-as) and fails unless at least MIN_PASS cases pass and, with
# --same-as, the pass set equals the baseline's.
execute_process(COMMAND ${EXE} conformance ${ROOT} --json ${JSON} ${ARGS}
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
if(out MATCHES "same pass set as [^\n]*: no")
  message(FATAL_ERROR "conformance: the pass set differs from the baseline (see REGRESSED / NEWLY PASSING lines)")
endif()
message("conformance: ${passed} passed (threshold ${MIN_PASS})")

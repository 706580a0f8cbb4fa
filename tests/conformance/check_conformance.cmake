# Runs the conformance suite (with extra ARGS, e.g. --devices/--policy/
# --same-as/--min-share) and fails unless at least MIN_PASS cases pass and,
# with --same-as, the pass set equals the baseline's, and with --min-share,
# enough nodes ran on the device. With NEEDS_DEVICE set, prints SKIPPED
# (which the test's SKIP_REGULAR_EXPRESSION turns into a skip) when that
# device cannot be opened here, e.g. no GPU.
if(NEEDS_DEVICE)
  execute_process(COMMAND ${EXE} devices --devices ${NEEDS_DEVICE} --link-bytes 65536
                  OUTPUT_VARIABLE dev_out ERROR_VARIABLE dev_err RESULT_VARIABLE dev_rc)
  if(NOT dev_rc EQUAL 0)
    string(STRIP "${dev_err}" dev_err)
    message("SKIPPED: ${NEEDS_DEVICE} is not usable on this machine: ${dev_err}")
    return()
  endif()
endif()
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
if(out MATCHES "share of kernel nodes on [^\n]*: BELOW")
  message(FATAL_ERROR "conformance: too few kernel nodes ran on the device (see the share line)")
endif()
if(out MATCHES "same pass set as [^\n]*: no")
  message(FATAL_ERROR "conformance: the pass set differs from the baseline (see REGRESSED / NEWLY PASSING lines)")
endif()
message("conformance: ${passed} passed (threshold ${MIN_PASS})")

# ctest: synthesise a trace (gs-tracegen synth), dump it, and check the dump holds every event and message.
# 6 ranks x 4 iterations: per rank 2 (main) + 4 x (2 compute + 3 send + 3 recv + 4 allreduce).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/dump)
execute_process(COMMAND ${TRACEGEN} synth ${WORK}/trace --ranks 6 --metahosts 2 --iterations 4
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "synth failed: ${rc}")
endif()
execute_process(COMMAND ${TOOL} dump ${WORK}/trace/traces.otf2 ${WORK}/dump --events RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dump failed: ${rc}")
endif()
file(READ ${WORK}/dump/defs.json defs)
string(JSON events GET "${defs}" events)
string(JSON matched GET "${defs}" messages matched)
string(JSON unmatched GET "${defs}" messages unmatched_sends)
string(JSON nlocs LENGTH "${defs}" locations)
math(EXPR want_events "6 * (2 + 4 * 12)")
if(NOT events EQUAL want_events OR NOT matched EQUAL 24 OR NOT unmatched EQUAL 0 OR NOT nlocs EQUAL 6)
  message(FATAL_ERROR "dump: events=${events} (want ${want_events}) matched=${matched} (want 24) "
                      "unmatched=${unmatched} locations=${nlocs}")
endif()
# a missing archive is one clear error and exit code 2
execute_process(COMMAND ${TOOL} dump ${WORK}/nothing/traces.otf2 ${WORK}/dump
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "gridscope-tracetool: .*nothing/traces.otf2")
  message(FATAL_ERROR "missing archive: rc=${rc} err=${err}")
endif()

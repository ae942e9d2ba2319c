# A bad setting does not stop the run: run CMD (a ;-list), which must exit 0, print WANT
# (a regular expression; write . for a ;) exactly once whatever the number of ranks, and print OK.
#   cmake -DCMD=... -DWANT=... -DOK=... -P expect_warning.cmake
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
string(REPLACE ";" "," all "${all}") # a ; would split the matches below into list items
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}, want 0:\n${all}")
endif()
string(REGEX MATCHALL "${WANT}" hits "${all}")
list(LENGTH hits n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "'${WANT}' printed ${n} times, want once:\n${all}")
endif()
if(NOT all MATCHES "${OK}")
  message(FATAL_ERROR "no '${OK}':\n${all}")
endif()
message(STATUS "one warning, run completed:\n${all}")

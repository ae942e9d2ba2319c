# The installed gridscope-replay built with profile feedback (GCC), in three steps run by
# `cmake -P` from the `gridscope-replay-pgo` target (analyzer/CMakeLists.txt):
#   1. the analyzer alone, instrumented (-fprofile-generate), in BUILD;
#   2. training: that engine analyses small gs-tracegen traces of several shapes (TRAINING
#      below), with and without root causes, with one and two processes;
#   3. the same BUILD folder again with -fprofile-use: the object files keep their paths,
#      so each finds its profile in PROFILE; the binary is copied to OUTPUT.
# Code the training never ran (threads, non-blocking collectives, MPI-IO, ...) is compiled
# as without feedback (-fprofile-partial-training), not for size. The outputs are those of
# the plain build (ctest analyzer.pgo_same_output): only code layout, inlining and branch
# order change. Inputs: SOURCE (the repository), BUILD, PROFILE, WORK, OUTPUT, TRACEGEN,
# GENERATOR, MAKE_PROGRAM, C_COMPILER, CXX_COMPILER.
cmake_minimum_required(VERSION 3.22)

# gs-tracegen command lines (OUT: the trace folder), up to 1 M events each; none is a trace
# of the benchmark matrix (benchmarks/analyzer/bench_matrix.py: 16-1024 ranks, 32 M events)
set(TRAINING
  "--bench 16 3000 OUT"
  "--bench 16 2800 OUT --waits all --clock-offsets 10"
  "--bench 64 800 OUT --collectives-every 1"
  "--bench 32 1000 OUT --depth 6 --waits few"
  "--bench 128 300 OUT"
  "synth OUT --ranks 48 --metahosts 3 --iterations 400")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "engine with profile feedback: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

function(configure_and_build flags)
  run("configure" ${CMAKE_COMMAND} -S ${SOURCE}/analyzer -B ${BUILD} -G ${GENERATOR} -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
      -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      -DCMAKE_BUILD_TYPE=Release -DGS_BUILD_TESTS=OFF -DGS_ENGINE_PGO=OFF
      "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
  run("build" ${CMAKE_COMMAND} --build ${BUILD} --target gridscope-replay)
endfunction()

file(REMOVE_RECURSE ${PROFILE} ${WORK})
file(MAKE_DIRECTORY ${WORK})
configure_and_build("-fprofile-generate -fprofile-update=single -fprofile-dir=${PROFILE}")

set(i 0)
foreach(shape IN LISTS TRAINING)
  set(trace ${WORK}/trace${i})
  string(REPLACE "OUT" "${trace}" line "${shape}")
  separate_arguments(args UNIX_COMMAND "${line}")
  run("training trace (gs-tracegen ${shape})" ${TRACEGEN} ${args})
  foreach(root_causes on off)
    foreach(processes 1 2)
      file(REMOVE_RECURSE ${WORK}/out)
      file(MAKE_DIRECTORY ${WORK}/out)
      run("training run (${shape}, root causes ${root_causes}, ${processes} processes)"
          ${BUILD}/gridscope-replay --processes ${processes} --root-causes ${root_causes} --rules scalasca
          -o ${WORK}/out ${trace}/traces.otf2)
    endforeach()
  endforeach()
  math(EXPR i "${i} + 1")
endforeach()

configure_and_build("-fprofile-use -fprofile-dir=${PROFILE} -fprofile-partial-training -Wno-missing-profile")
file(COPY_FILE ${BUILD}/gridscope-replay ${OUTPUT})
file(REMOVE_RECURSE ${WORK})

# cmake -DOUT=FILE -DINPUTS="a|b|..." -P replayer_key.cmake
# The key of a replayer binary: sha256 of the lines "sha256(input)\n" of its inputs in order
# (source, its included parts, collector archive, collectives archive when built, smpicc). gridscope predict
# computes the same (src/gridscope/predict/replay.py, replayer_key) and uses the installed
# binary only when the keys agree, else a build of its own (docs/predict.md).
string(REPLACE "|" ";" INPUTS "${INPUTS}")
set(text "")
foreach(input IN LISTS INPUTS)
  file(SHA256 "${input}" digest)
  string(APPEND text "${digest}\n")
endforeach()
string(SHA256 key "${text}")
file(WRITE "${OUT}" "${key}\n")

// gs-tracegen's modes (gs_tracegen.cpp: command line and spec; tracegen_bench.cpp;
// tracegen_synth.cpp). Each writes one archive with gs::TraceWriter.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gs::tracegen {

// "gs-tracegen: WHERE: PROBLEM" on stderr, exit 2.
[[noreturn]] void die(const std::string& where, const std::string& problem);
uint64_t number(const std::string& s, const std::string& where);

int run_spec(const std::string& spec_path, const std::string& out);
int run_bench(const std::vector<std::string>& args);  // RANKS ITERATIONS OUTDIR [options]
int run_synth(const std::vector<std::string>& args);  // OUTDIR [options]

}  // namespace gs::tracegen

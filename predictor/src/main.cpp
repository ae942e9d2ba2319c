// gridscope-actions TRACE OUTDIR: a trace's ranks as action streams for the SMPI replayer
// (actions.hpp). Bad input: one line "gridscope-actions: WHERE: PROBLEM", exit 2.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "actions.hpp"
#include "gridscope/trace/error.hpp"

static void remove_streams(const std::string& dir, uint32_t ranks) {
  for (uint32_t r = 0; r < ranks; ++r) std::remove((dir + "/rank-" + std::to_string(r) + ".act").c_str());
  rmdir(dir.c_str());  // only when empty: a folder of the caller's keeps its other files
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gridscope-actions TRACE OUTDIR\n");
    return 2;
  }
  const std::string trace = argv[1], dir = argv[2];
  try {
    gs::Archive archive(trace);
    if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) throw gs::Error(dir, "cannot be created");
    gs::predict::ActionSet set;
    try {
      set = gs::predict::write_rank_actions(archive, dir);
    } catch (...) {
      remove_streams(dir, archive.defs().ranks());
      throw;
    }
    if (!set.unsupported.empty()) {
      remove_streams(dir, set.streams);  // nothing to replay: leave no half of it
      std::string names;
      for (const auto& [name, n] : set.unsupported)
        names += (names.empty() ? "" : ", ") + name + " (" + std::to_string(n) + "x)";
      throw gs::Error(archive.anchor(), "cannot be replayed: it uses " + names +
                                            ", which the predictor does not express");
    }
    gs::predict::write_shared(archive, set, dir);
  } catch (const gs::Error& e) {
    std::fprintf(stderr, "gridscope-actions: %s: %s\n", e.where.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridscope-actions: %s: %s\n", trace.c_str(), e.what());
    return 2;
  }
  return 0;
}

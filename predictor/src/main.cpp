// gridscope-actions TRACE OUTDIR: a trace's ranks as action streams for the SMPI replayer
// (actions.hpp). Bad input: one line "gridscope-actions: WHERE: PROBLEM", exit 2.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "actions.hpp"
#include "gridscope/trace/error.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gridscope-actions TRACE OUTDIR\n");
    return 2;
  }
  const std::string trace = argv[1], dir = argv[2];
  try {
    gs::Archive archive(trace);
    gs::predict::ActionSet set = gs::predict::build_actions(archive);
    if (!set.unsupported.empty()) {
      std::string names;
      for (const auto& [name, n] : set.unsupported)
        names += (names.empty() ? "" : ", ") + name + " (" + std::to_string(n) + "x)";
      throw gs::Error(archive.anchor(), "cannot be replayed: it uses " + names +
                                            ", which the predictor does not express");
    }
    if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) throw gs::Error(dir, "cannot be created");
    gs::predict::write_actions(archive, set, dir);
  } catch (const gs::Error& e) {
    std::fprintf(stderr, "gridscope-actions: %s: %s\n", e.where.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridscope-actions: %s: %s\n", trace.c_str(), e.what());
    return 2;
  }
  return 0;
}

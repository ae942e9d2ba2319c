// gridscope-tracetool: the viewer's native helper.
//   dump ANCHOR OUTDIR [--events]   columnar dump of a Score-P-layout OTF2 trace
//   markers ANCHOR MARKERS.tsv      add marker records (wait states) to an archive
// (synthetic traces: gs-tracegen synth, trace/tools/)
#include <cstring>

#include "common.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    std::printf(
        "usage: gridscope-tracetool dump ANCHOR OUTDIR [--events]\n"
        "       gridscope-tracetool markers ANCHOR MARKERS.tsv\n");
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "dump")) return gs::run_dump(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "markers")) return gs::run_markers(argc - 2, argv + 2);
  gs::fail(argv[1], "unknown sub-command (want dump or markers)");
}

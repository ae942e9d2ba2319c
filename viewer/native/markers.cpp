// `markers`: add marker records to an existing OTF2 archive (the copy `gridscope export
// --format otf2` made). Vampir draws markers on its timelines; each wait-state instance
// becomes one marker with a duration, scoped to the location that waited.
//
// Input: a tab-separated file, one record a line:
//   D <ref> <group> <category> <NONE|LOW|MEDIUM|HIGH>                       marker class
//   M <ref> <location id> <timestamp ticks> <duration ticks> <text>           one marker
// Timestamps are global ticks (the trace's timer, ClockProperties offset included).
#include <otf2/otf2.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common.hpp"

namespace gs {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, '\t')) out.push_back(field);
  return out;
}

OTF2_MarkerSeverity parse_severity(const std::string& s, const std::string& where) {
  if (s == "NONE") return OTF2_SEVERITY_NONE;
  if (s == "LOW") return OTF2_SEVERITY_LOW;
  if (s == "MEDIUM") return OTF2_SEVERITY_MEDIUM;
  if (s == "HIGH") return OTF2_SEVERITY_HIGH;
  fail(where, "bad marker severity '" + s + "'");
}

uint64_t parse_u64(const std::string& s, const std::string& where) {
  try {
    size_t used = 0;
    unsigned long long v = std::stoull(s, &used);
    if (used != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    fail(where, "bad number '" + s + "'");
  }
}

}  // namespace

int run_markers(int argc, char** argv) {
  if (argc != 2) fail("markers", "usage: markers ANCHOR MARKERS.tsv");
  std::string anchor = argv[0], tsv = argv[1];
  std::ifstream in(tsv);
  if (!in) fail(tsv, "cannot read marker list");

  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  if (!reader) fail(anchor, "cannot open OTF2 archive");
  if (OTF2_Reader_SetSerialCollectiveCallbacks(reader) != OTF2_SUCCESS)
    fail(anchor, "cannot set serial mode");
  OTF2_MarkerWriter* writer = OTF2_Reader_GetMarkerWriter(reader);
  if (!writer) fail(anchor, "cannot create a marker writer");

  std::string line;
  size_t lineno = 0;
  uint64_t written = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::string where = tsv + ":" + std::to_string(lineno);
    auto f = split_tabs(line);
    OTF2_ErrorCode rc;
    if (f[0] == "D" && f.size() == 5) {
      rc = OTF2_MarkerWriter_WriteDefMarker(writer, parse_u64(f[1], where), f[2].c_str(),
                                            f[3].c_str(), parse_severity(f[4], where));
    } else if (f[0] == "M" && (f.size() == 6 || f.size() == 5)) {
      rc = OTF2_MarkerWriter_WriteMarker(writer, parse_u64(f[3], where), parse_u64(f[4], where),
                                         parse_u64(f[1], where), OTF2_MARKER_SCOPE_LOCATION,
                                         parse_u64(f[2], where), f.size() == 6 ? f[5].c_str() : "");
      ++written;
    } else {
      fail(where, "bad marker line");
    }
    if (rc != OTF2_SUCCESS) fail(where, std::string("cannot write marker: ") + OTF2_Error_GetName(rc));
  }
  if (OTF2_Reader_CloseMarkerWriter(reader, writer) != OTF2_SUCCESS) fail(anchor, "cannot close marker writer");
  if (OTF2_Reader_Close(reader) != OTF2_SUCCESS) fail(anchor, "cannot close archive");
  std::printf("%llu markers\n", static_cast<unsigned long long>(written));
  return 0;
}

}  // namespace gs

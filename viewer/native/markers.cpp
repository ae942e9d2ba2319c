// `markers`: add marker records to an existing OTF2 archive (the copy `gridscope export
// --format otf2` made). Parses the marker list; the trace library writes the records
// (gridscope/trace/markers.hpp).
//
// Input: a tab-separated file, one record a line:
//   D <ref> <group> <category> <NONE|LOW|MEDIUM|HIGH>                       marker class
//   M <ref> <location id> <timestamp ticks> <duration ticks> <text>           one marker
// Timestamps are global ticks (the trace's timer, ClockProperties offset included).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common.hpp"
#include "gridscope/trace/error.hpp"
#include "gridscope/trace/markers.hpp"

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

  std::vector<MarkerClass> classes;
  std::vector<Marker> markers;
  std::string line;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::string where = tsv + ":" + std::to_string(lineno);
    auto f = split_tabs(line);
    if (f[0] == "D" && f.size() == 5) {
      classes.push_back({parse_u64(f[1], where), f[2], f[3], parse_severity(f[4], where)});
    } else if (f[0] == "M" && (f.size() == 6 || f.size() == 5)) {
      markers.push_back({parse_u64(f[1], where), parse_u64(f[2], where), parse_u64(f[3], where),
                         parse_u64(f[4], where), f.size() == 6 ? f[5] : ""});
    } else {
      fail(where, "bad marker line");
    }
  }
  try {
    add_markers(anchor, classes, markers);
  } catch (const Error& e) {
    fail(e.where, e.what());
  }
  std::printf("%llu markers\n", static_cast<unsigned long long>(markers.size()));
  return 0;
}

}  // namespace gs

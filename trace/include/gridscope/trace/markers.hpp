// Marker records (OTF2 marker file) added to an existing archive: Vampir draws them on
// its timelines. `gridscope export --format otf2` marks every wait-state instance of a copy
// of the trace this way. Throws gs::Error on any problem.
#pragma once
#include <otf2/otf2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gs {

struct MarkerClass {
  uint64_t id;
  std::string group, category;
  OTF2_MarkerSeverity severity;
};

// One marker with a duration, scoped to a location; times in global ticks (the trace's
// timer, ClockProperties offset included).
struct Marker {
  uint64_t class_id, location, time, duration;
  std::string text;
};

// Writes the classes, then the markers, into the archive of ANCHOR (traces.otf2).
void add_markers(const std::string& anchor, const std::vector<MarkerClass>& classes,
                 const std::vector<Marker>& markers);

}  // namespace gs

// An open OTF2 archive: the anchor, its global definitions, and a pass over the events of
// chosen locations (local definitions first, so libotf2 applies their ClockOffsets).
#pragma once
#include <otf2/otf2.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gridscope/trace/defs.hpp"

namespace gs {

// The anchor file of TRACE (a folder holding traces.otf2, or the anchor itself); throws
// gs::Error naming the path when there is none.
std::string anchor_of(const std::string& trace);

// What is wrong with a location's ClockOffsets (local time, offset), as read: a point whose
// synchronised time lies outside the trace's span (TimeSpan), local times that do not
// increase, or two points whose synchronised times do not increase (time would run
// backwards between them). Empty when they are fine.
std::string clock_offset_problem(const std::vector<std::pair<uint64_t, int64_t>>& offsets, const Defs& defs);

class Archive {
 public:
  // Opens the archive and reads its global definitions (see read_definitions).
  explicit Archive(const std::string& trace, bool require_mpi = true);
  ~Archive();
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;

  const std::string& anchor() const { return defs_.anchor; }
  const Defs& defs() const { return defs_; }
  Defs& defs() { return defs_; }
  // Path of a location's event file (for messages).
  std::string event_file(uint64_t location) const;

  // One pass over the events of `locations`, in that order. For each location `begin(i)`
  // returns the user data the callbacks in `cb` receive, then its events are read, then
  // `end(i, events)` runs. A callback that returns OTF2_CALLBACK_INTERRUPT stops the pass
  // after `end`, which is where the caller reports the problem. A location without event
  // file (a rank killed before its first buffer flush) has no events: `end` learns it from
  // `missing`. Throws gs::Error for undecodable files, naming the file.
  struct LocationInfo { bool clock_offsets_applied = false, missing = false; };
  void read_events(const std::vector<uint64_t>& locations, OTF2_EvtReaderCallbacks* cb,
                   const std::function<void*(size_t)>& begin,
                   const std::function<void(size_t, uint64_t events, const LocationInfo&)>& end);

  OTF2_Reader* otf2() { return reader_; }

 private:
  OTF2_Reader* reader_ = nullptr;
  Defs defs_;
};

}  // namespace gs

#include "gridscope/trace/archive.hpp"

#include <sys/stat.h>

#include <cstdarg>
#include <cstdio>
#include <utility>
#include <vector>

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/events.hpp"

namespace gs {
namespace {

bool file_exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

OTF2_ErrorCode quiet_otf2(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char*, va_list) {
  return code;  // errors are reported by the caller, once, with the file name
}

// What a location's local definitions hold that libotf2 would apply to every event.
struct LocalDefCounts {
  uint64_t clock_offsets = 0, mapping_tables = 0;
  std::vector<std::pair<uint64_t, int64_t>> offsets;  // (local time, offset), as read
};

OTF2_CallbackCode on_clock_offset(void* u, OTF2_TimeStamp t, int64_t offset, double) {
  auto* c = static_cast<LocalDefCounts*>(u);
  c->clock_offsets++;
  c->offsets.emplace_back(t, offset);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_mapping_table(void* u, OTF2_MappingType, const OTF2_IdMap*) {
  static_cast<LocalDefCounts*>(u)->mapping_tables++;
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

std::string clock_offset_problem(const std::vector<std::pair<uint64_t, int64_t>>& offsets, const Defs& defs) {
  const TimeSpan span(defs);
  char text[200];
  for (size_t i = 0; i < offsets.size(); ++i) {
    const auto [t, o] = offsets[i];
    // the synchronised time of this point: t + o, outside the trace's span when negative
    const __int128 global = __int128(t) + o;
    if (global < __int128(span.lo) || global > __int128(span.hi)) {
      std::snprintf(text, sizeof text, "ClockOffset %zu (local time %llu, offset %lld ticks) puts time at %.6f s, "
                    "outside the trace's span (0 to %.6f s): damaged ClockOffset", i + 1, (unsigned long long)t,
                    (long long)o, (double(global) - double(defs.global_offset)) / double(defs.resolution),
                    defs.seconds(defs.global_offset + defs.trace_length));
      return text;
    }
    if (i == 0) continue;
    const auto [t0, o0] = offsets[i - 1];
    if (t <= t0) {
      std::snprintf(text, sizeof text, "ClockOffset %zu (local time %llu) is not later than the one before it "
                    "(local time %llu): damaged ClockOffset", i + 1, (unsigned long long)t, (unsigned long long)t0);
      return text;
    }
    if (global <= __int128(t0) + o0) {
      std::snprintf(text, sizeof text, "ClockOffsets %zu and %zu move time backwards (offset %lld then %lld ticks "
                    "over %llu local ticks): damaged ClockOffset", i, i + 1, (long long)o0, (long long)o,
                    (unsigned long long)(t - t0));
      return text;
    }
  }
  return {};
}

std::string anchor_of(const std::string& trace) {
  struct stat st;
  if (stat(trace.c_str(), &st) != 0) throw Error(trace, "no such trace");
  std::string dir = trace;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::string a = S_ISDIR(st.st_mode) ? dir + "/traces.otf2" : trace;
  if (stat(a.c_str(), &st) != 0) throw Error(a, "no OTF2 anchor file (traces.otf2) here");
  if (a.size() < 5 || a.substr(a.size() - 5) != ".otf2") throw Error(a, "not an OTF2 anchor file (*.otf2)");
  return a;
}

Archive::Archive(const std::string& trace, bool require_mpi) {
  static const bool quiet = (OTF2_Error_RegisterCallback(quiet_otf2, nullptr), true);
  (void)quiet;
  std::string anchor = anchor_of(trace);
  reader_ = OTF2_Reader_Open(anchor.c_str());
  if (!reader_) throw Error(anchor, "cannot open the OTF2 archive (missing or corrupt anchor file)");
  OTF2_Reader_SetSerialCollectiveCallbacks(reader_);
  try {
    defs_ = read_definitions(reader_, anchor, require_mpi);
  } catch (...) {
    OTF2_Reader_Close(reader_);
    throw;
  }
}

Archive::~Archive() {
  if (reader_) OTF2_Reader_Close(reader_);
}

std::string Archive::event_file(uint64_t location) const {
  const std::string& a = defs_.anchor;
  return a.substr(0, a.size() - 5) + "/" + std::to_string(location) + ".evt";  // strip ".otf2"
}

void Archive::read_events(const std::vector<uint64_t>& locations, OTF2_EvtReaderCallbacks* cb,
                          const std::function<void*(size_t)>& begin,
                          const std::function<void(size_t, uint64_t, const LocationInfo&)>& end) {
  for (uint64_t loc : locations) OTF2_Reader_SelectLocation(reader_, loc);
  bool have_defs = OTF2_Reader_OpenDefFiles(reader_) == OTF2_SUCCESS;
  if (OTF2_Reader_OpenEvtFiles(reader_) != OTF2_SUCCESS) throw Error(anchor(), "cannot open the event files");
  OTF2_DefReaderCallbacks* dcb = OTF2_DefReaderCallbacks_New();
  OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, on_clock_offset);
  OTF2_DefReaderCallbacks_SetMappingTableCallback(dcb, on_mapping_table);
  struct Cleanup {
    OTF2_Reader* r; OTF2_DefReaderCallbacks* dcb; bool defs;
    ~Cleanup() {
      OTF2_DefReaderCallbacks_Delete(dcb);
      OTF2_Reader_CloseEvtFiles(r);
      if (defs) OTF2_Reader_CloseDefFiles(r);
    }
  } cleanup{reader_, dcb, have_defs};

  for (size_t i = 0; i < locations.size(); ++i) {
    const uint64_t loc = locations[i];
    const std::string evt_file = event_file(loc);
    if (!file_exists(evt_file)) {
      begin(i);
      LocationInfo lost;
      lost.missing = true;
      end(i, 0, lost);
      continue;
    }
    // The event reader must exist before the local definitions are read: OTF2 attaches
    // their ClockOffsets (and mapping tables) to it.
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(reader_, loc);
    if (!er) throw Error(evt_file, "cannot open the event stream");
    LocalDefCounts counts;
    const std::string def_file = evt_file.substr(0, evt_file.size() - 4) + ".def";
    if (have_defs && file_exists(def_file)) {
      OTF2_DefReader* dr = OTF2_Reader_GetDefReader(reader_, loc);
      if (dr) {
        uint64_t n = 0;
        OTF2_Reader_RegisterDefCallbacks(reader_, dr, dcb, &counts);
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(reader_, dr, &n);
        OTF2_Reader_CloseDefReader(reader_, dr);
        if (rc != OTF2_SUCCESS)
          throw Error(def_file, std::string("corrupt local definitions: ") + OTF2_Error_GetDescription(rc));
      }
      std::string problem = clock_offset_problem(counts.offsets, defs_);
      if (!problem.empty()) throw Error(def_file, problem);
    }
    // Without them libotf2 would still look both up for every event (about 6 % of the
    // analysis engine's time on its benchmark trace).
    if (counts.clock_offsets == 0) OTF2_EvtReader_ApplyClockOffsets(er, false);
    if (counts.mapping_tables == 0) OTF2_EvtReader_ApplyMappingTables(er, false);
    OTF2_Reader_RegisterEvtCallbacks(reader_, er, cb, begin(i));
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(reader_, er, &n);
    OTF2_Reader_CloseEvtReader(reader_, er);
    LocationInfo info;
    info.clock_offsets_applied = counts.clock_offsets >= 2;  // OTF2 interpolates only between two or more
    end(i, n, info);  // reports an interrupting callback's problem first
    if (rc != OTF2_SUCCESS && rc != OTF2_ERROR_INTERRUPTED_BY_CALLBACK)
      throw Error(evt_file, std::string("corrupt or truncated event stream: ") + OTF2_Error_GetDescription(rc));
  }
}

}  // namespace gs

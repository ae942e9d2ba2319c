#include "gridscope/trace/archive.hpp"

#include <sys/stat.h>

#include <cstdarg>

#include "gridscope/trace/error.hpp"

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
struct LocalDefCounts { uint64_t clock_offsets = 0, mapping_tables = 0; };

OTF2_CallbackCode on_clock_offset(void* u, OTF2_TimeStamp, int64_t, double) {
  static_cast<LocalDefCounts*>(u)->clock_offsets++;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_mapping_table(void* u, OTF2_MappingType, const OTF2_IdMap*) {
  static_cast<LocalDefCounts*>(u)->mapping_tables++;
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

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
      auto r = defs_.location_rank.find(loc);
      throw Error(evt_file, r != defs_.location_rank.end()
                                ? "event file of rank " + std::to_string(r->second) + " is missing"
                                : "event file of location " + std::to_string(loc) + " is missing");
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

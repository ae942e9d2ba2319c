// Global definitions of a Score-P-layout OTF2 archive: what every tool needs (regions,
// system tree, locations, communicators) plus what the analysis derives from them (MPI
// ranks in COMM_LOCATIONS order, communicators as lists of world ranks, each rank's node
// and metahost by the system-tree convention of docs/architecture.md).
#pragma once
#include <otf2/otf2.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "gridscope/trace/mpi_names.hpp"

namespace gs {

struct RegionDef {
  std::string name, canonical, file;
  uint8_t role = OTF2_REGION_ROLE_UNKNOWN;
  uint8_t paradigm = OTF2_PARADIGM_UNKNOWN;
  bool defined = false;
  bool is_mpi = false;         // paradigm MPI or named MPI_*: never repaired, always analysed
  bool is_test = false;        // MPI_Test*: ignored by Late Sender
  bool lr_send = false;        // a send kind Late Receiver applies to
  CollClass coll = CollClass::None;
};

struct CommDef {
  std::string name;
  bool exists = false;                           // defined in the trace (any paradigm)
  bool defined = false;                          // an MPI communicator the analysis can use
  bool is_self = false;
  bool global_ranks = false;                     // events name world ranks (OTF2_GROUP_FLAG_GLOBAL_MEMBERS)
  std::vector<uint32_t> members;                 // world rank of each comm rank
  std::unordered_map<uint32_t, uint32_t> position;  // world rank -> comm rank
  bool grid = false;                             // spans more than one metahost
};

struct SystemTreeNodeDef {
  uint32_t id;
  std::string name, cls;
  uint32_t parent;  // OTF2_UNDEFINED_SYSTEM_TREE_NODE at the root
};

struct LocationGroupDef {
  uint32_t id;
  std::string name;
  uint8_t type;
  uint32_t parent;  // system tree node
};

struct LocationDef {
  uint64_t id;
  std::string name;
  uint8_t type;
  uint64_t events;  // as announced by the definition
  uint32_t group;
  uint32_t rank;    // MPI world rank when this location is a rank's master location, else kNoRank
};

constexpr uint32_t kNoRank = UINT32_MAX;

struct Defs {
  std::string anchor;
  uint64_t resolution = 1;
  uint64_t global_offset = 0;
  uint64_t trace_length = 0;
  std::vector<RegionDef> regions;                // indexed by region ref
  std::vector<CommDef> comms;                    // indexed by comm ref
  std::vector<SystemTreeNodeDef> system_tree;    // in definition order
  std::vector<LocationGroupDef> location_groups; // in definition order
  std::vector<LocationDef> locations;            // in definition order
  std::vector<uint64_t> rank_location;           // rank -> location id
  std::vector<uint64_t> rank_events;             // events announced by the Location definition
  std::unordered_map<uint64_t, uint32_t> location_rank;
  std::vector<std::string> rank_node, rank_metahost_name;
  std::vector<uint32_t> rank_metahost;           // rank -> index into metahosts
  std::vector<std::string> metahosts;
  // The other locations of each rank's location group (its threads), in definition order:
  // rank_threads[r][k - 1] is the rank's thread k (Thread, records.hpp). The reader
  // analyses those that hold MPI events.
  std::vector<std::vector<uint64_t>> rank_threads;
  // Locations that are not MPI ranks' master locations (threads, other kinds of location),
  // as the definitions announce them; the analysis reports how many it did not analyse.
  uint64_t other_locations = 0, other_location_events = 0;
  std::unordered_map<uint32_t, std::string> strings;  // String definitions (ProgramBegin's program name)

  uint32_t ranks() const { return rank_location.size(); }
  // World rank of `comm_rank` in `comm` as seen by `caller`; UINT32_MAX if out of range.
  uint32_t world_rank(uint32_t comm, uint32_t comm_rank, uint32_t caller) const {
    if (comm >= comms.size() || !comms[comm].defined) return UINT32_MAX;
    const CommDef& c = comms[comm];
    if (c.is_self) return comm_rank == 0 ? caller : UINT32_MAX;
    if (c.global_ranks) return comm_rank < ranks() ? comm_rank : UINT32_MAX;
    return comm_rank < c.members.size() ? c.members[comm_rank] : UINT32_MAX;
  }
  const std::string& region_name(uint32_t region) const {
    static const std::string unknown = "?";
    return region < regions.size() && regions[region].defined ? regions[region].name : unknown;
  }
  // Seconds since the trace's global offset.
  double seconds(uint64_t ticks) const { return (double(ticks) - double(global_offset)) / double(resolution); }
};

// Reads the global definitions; throws gs::Error on any problem. `require_mpi`: a trace
// without MPI communicator definitions is an error (the analysis); other tools read any trace.
Defs read_definitions(OTF2_Reader* reader, const std::string& anchor, bool require_mpi = true);

// Replaces the metahosts with an explicit list (one per rank) and recomputes grid flags.
void assign_metahosts(Defs& defs, const std::vector<std::string>& per_rank);

}  // namespace gs

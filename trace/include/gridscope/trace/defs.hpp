// Global definitions of a Score-P-layout OTF2 archive, reduced to what the replay needs:
// regions, MPI ranks (COMM_LOCATIONS order), communicators as lists of world ranks, and
// each rank's node and metahost (system tree convention, docs/architecture.md).
#pragma once
#include <otf2/otf2.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "gridscope/trace/mpi_names.hpp"

namespace gs {

struct RegionDef {
  std::string name;
  bool is_mpi = false;
  bool is_test = false;        // MPI_Test*: ignored by Late Sender
  bool lr_send = false;        // a send kind Late Receiver applies to
  CollClass coll = CollClass::None;
};

struct CommDef {
  bool defined = false;
  bool is_self = false;
  std::vector<uint32_t> members;                 // world rank of each comm rank
  std::unordered_map<uint32_t, uint32_t> position;  // world rank -> comm rank
  bool grid = false;                             // spans more than one metahost
};

struct Defs {
  std::string anchor;
  uint64_t resolution = 1;
  uint64_t global_offset = 0;
  uint64_t trace_length = 0;
  std::vector<RegionDef> regions;
  std::vector<CommDef> comms;
  std::vector<uint64_t> rank_location;           // rank -> location id
  std::vector<uint64_t> rank_events;             // events announced by the Location definition
  std::unordered_map<uint64_t, uint32_t> location_rank;
  std::vector<std::string> rank_node, rank_metahost_name;
  std::vector<uint32_t> rank_metahost;           // rank -> index into metahosts
  std::vector<std::string> metahosts;
  // Locations that are not MPI ranks (the ranks' other threads): not analysed, only counted.
  uint64_t other_locations = 0, other_location_events = 0;

  uint32_t ranks() const { return rank_location.size(); }
  // World rank of `comm_rank` in `comm` as seen by `caller`; UINT32_MAX if out of range.
  uint32_t world_rank(uint32_t comm, uint32_t comm_rank, uint32_t caller) const {
    if (comm >= comms.size() || !comms[comm].defined) return UINT32_MAX;
    const CommDef& c = comms[comm];
    if (c.is_self) return comm_rank == 0 ? caller : UINT32_MAX;
    return comm_rank < c.members.size() ? c.members[comm_rank] : UINT32_MAX;
  }
};

// Reads the global definitions; throws gs::Error on any problem.
Defs read_definitions(OTF2_Reader* reader, const std::string& anchor);

// Replaces the metahosts with an explicit list (one per rank) and recomputes grid flags.
void assign_metahosts(Defs& defs, const std::vector<std::string>& per_rank);

}  // namespace gs

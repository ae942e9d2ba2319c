#include "gridscope/trace/defs.hpp"

#include <map>

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/records.hpp"

namespace gs {
namespace {

struct TreeNode { uint32_t name = 0, cls = 0; uint32_t parent = OTF2_UNDEFINED_SYSTEM_TREE_NODE; };
struct GroupDef { OTF2_GroupType type; OTF2_Paradigm paradigm; OTF2_GroupFlag flags; std::vector<uint64_t> members; };
struct RawComm { uint32_t name, group; };
struct RawRegion { uint32_t name, canonical, file; OTF2_RegionRole role; OTF2_Paradigm paradigm; };
struct RawLocationGroup { uint32_t id, name; OTF2_LocationGroupType type; uint32_t parent; };
struct RawLocation { uint64_t id; uint32_t name; OTF2_LocationType type; uint64_t events; uint32_t group; };

struct Raw {
  std::unordered_map<uint32_t, std::string> strings;
  std::unordered_map<uint32_t, TreeNode> tree;
  std::vector<uint32_t> tree_order;
  std::unordered_map<uint32_t, uint32_t> lg_parent;       // location group -> tree node
  std::vector<RawLocationGroup> location_groups;
  std::unordered_map<uint64_t, uint32_t> location_group;  // location -> location group
  std::unordered_map<uint64_t, uint64_t> location_events;
  std::vector<RawLocation> locations;
  std::unordered_map<uint32_t, GroupDef> groups;
  std::map<uint32_t, RawComm> comms;
  std::unordered_map<uint32_t, RawRegion> regions;
  bool have_clock = false;
  uint64_t res = 0, offset = 0, length = 0;
};

OTF2_CallbackCode on_clock(void* u, uint64_t res, uint64_t off, uint64_t len, uint64_t) {
  auto* r = static_cast<Raw*>(u);
  r->have_clock = true; r->res = res; r->offset = off; r->length = len;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_string(void* u, OTF2_StringRef self, const char* s) {
  static_cast<Raw*>(u)->strings[self] = s ? s : "";
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_tree(void* u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                          OTF2_SystemTreeNodeRef parent) {
  auto* r = static_cast<Raw*>(u);
  if (!r->tree.count(self)) r->tree_order.push_back(self);
  r->tree[self] = {name, cls, parent};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_lg(void* u, OTF2_LocationGroupRef self, OTF2_StringRef name, OTF2_LocationGroupType type,
                        OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef) {
  static_cast<Raw*>(u)->lg_parent[self] = parent;
  static_cast<Raw*>(u)->location_groups.push_back({self, name, type, parent});
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_loc(void* u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type, uint64_t events,
                         OTF2_LocationGroupRef group) {
  static_cast<Raw*>(u)->locations.push_back({self, name, type, events, group});
  static_cast<Raw*>(u)->location_group[self] = group;
  static_cast<Raw*>(u)->location_events[self] = events;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_group(void* u, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm par,
                           OTF2_GroupFlag flags, uint32_t n, const uint64_t* members) {
  static_cast<Raw*>(u)->groups[self] = {type, par, flags, std::vector<uint64_t>(members, members + n)};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm(void* u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef,
                          OTF2_CommFlag) {
  static_cast<Raw*>(u)->comms[self] = {name, group};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_region(void* u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                            OTF2_StringRef, OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag,
                            OTF2_StringRef file, uint32_t, uint32_t) {
  static_cast<Raw*>(u)->regions[self] = {name, canonical, file, role, paradigm};
  return OTF2_CALLBACK_SUCCESS;
}

std::string str(const Raw& raw, uint32_t ref) {
  auto it = raw.strings.find(ref);
  return it == raw.strings.end() ? std::string() : it->second;
}

void compute_grid_flags(Defs& d) {
  for (auto& c : d.comms) {
    c.grid = false;
    for (uint32_t r : c.members)
      if (d.rank_metahost[r] != d.rank_metahost[c.members[0]]) { c.grid = true; break; }
  }
}

}  // namespace

void assign_metahosts(Defs& d, const std::vector<std::string>& per_rank) {
  d.metahosts.clear();
  d.rank_metahost.assign(d.ranks(), 0);
  d.rank_metahost_name = per_rank;
  std::map<std::string, uint32_t> index;
  for (uint32_t r = 0; r < d.ranks(); ++r) {
    auto it = index.find(per_rank[r]);
    if (it == index.end()) {
      it = index.emplace(per_rank[r], d.metahosts.size()).first;
      d.metahosts.push_back(per_rank[r]);
    }
    d.rank_metahost[r] = it->second;
  }
  compute_grid_flags(d);
}

Defs read_definitions(OTF2_Reader* reader, const std::string& anchor, bool require_mpi) {
  Raw raw;
  OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(reader);
  if (!gdr) throw Error(anchor, "cannot open the global definitions (traces.def missing?)");
  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_tree);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_lg);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_loc);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, cb, &raw);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  uint64_t n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &n);
  if (rc != OTF2_SUCCESS)
    throw Error(anchor, std::string("corrupt global definitions: ") + OTF2_Error_GetDescription(rc));
  if (!raw.have_clock || raw.res == 0) throw Error(anchor, "missing definitions: no clock properties");

  Defs d;
  d.anchor = anchor;
  d.resolution = raw.res;
  d.global_offset = raw.offset;
  d.trace_length = raw.length;

  // MPI ranks: the MPI COMM_LOCATIONS group lists locations in MPI_COMM_WORLD rank order.
  const GroupDef* world_locs = nullptr;
  for (auto& [id, g] : raw.groups)
    if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g.paradigm == OTF2_PARADIGM_MPI) world_locs = &g;
  if ((!world_locs || world_locs->members.empty()) && require_mpi)
    throw Error(anchor, "not an MPI trace: no MPI communicator definitions (no MPI events)");
  if (world_locs) d.rank_location = world_locs->members;
  for (uint32_t r = 0; r < d.ranks(); ++r) {
    d.location_rank[d.rank_location[r]] = r;
    d.rank_events.push_back(raw.location_events[d.rank_location[r]]);
    if (!raw.location_group.count(d.rank_location[r]))
      throw Error(anchor, "missing definitions: location " + std::to_string(d.rank_location[r]) + " is not defined");
  }
  for (auto& [loc, events] : raw.location_events)
    if (!d.location_rank.count(loc)) {
      d.other_locations++;
      d.other_location_events += events;
    }
  // a rank's threads: the CPU threads of its master location's group (Score-P's layout)
  std::unordered_map<uint32_t, uint32_t> group_rank;
  for (uint32_t r = 0; r < d.ranks(); ++r) group_rank.emplace(raw.location_group[d.rank_location[r]], r);
  d.rank_threads.assign(d.ranks(), {});
  for (const RawLocation& l : raw.locations) {
    auto g = group_rank.find(l.group);
    if (g != group_rank.end() && l.type == OTF2_LOCATION_TYPE_CPU_THREAD && !d.location_rank.count(l.id) &&
        d.rank_threads[g->second].size() + 1 < kMaxThreads)
      d.rank_threads[g->second].push_back(l.id);
  }
  for (const RawLocation& l : raw.locations) {
    auto r = d.location_rank.find(l.id);
    d.locations.push_back({l.id, str(raw, l.name), uint8_t(l.type), l.events, l.group,
                           r == d.location_rank.end() ? kNoRank : r->second});
  }
  for (uint32_t n : raw.tree_order) {
    const TreeNode& t = raw.tree[n];
    d.system_tree.push_back({n, str(raw, t.name), str(raw, t.cls), t.parent});
  }
  for (const RawLocationGroup& g : raw.location_groups)
    d.location_groups.push_back({g.id, str(raw, g.name), uint8_t(g.type), g.parent});

  uint32_t max_region = 0;
  for (auto& [id, _] : raw.regions) max_region = std::max(max_region, id + 1);
  d.regions.resize(max_region);
  for (auto& [id, rp] : raw.regions) {
    RegionDef& r = d.regions[id];
    r.defined = true;
    r.name = str(raw, rp.name);
    r.canonical = str(raw, rp.canonical);
    r.file = str(raw, rp.file);
    r.role = uint8_t(rp.role);
    r.paradigm = uint8_t(rp.paradigm);
    r.is_mpi = rp.paradigm == OTF2_PARADIGM_MPI || r.name.rfind("MPI_", 0) == 0;
    r.is_test = r.name.rfind("MPI_Test", 0) == 0;
    r.lr_send = late_receiver_send(r.name);
    r.coll = collective_class(r.name);
  }

  uint32_t max_comm = 0;
  for (auto& [id, _] : raw.comms) max_comm = std::max(max_comm, id + 1);
  d.comms.resize(max_comm);
  for (auto& [id, rc2] : raw.comms) {
    CommDef& c = d.comms[id];
    c.exists = true;
    c.name = str(raw, rc2.name);
    auto git = raw.groups.find(rc2.group);
    if (git == raw.groups.end() || git->second.paradigm != OTF2_PARADIGM_MPI) continue;
    if (git->second.type == OTF2_GROUP_TYPE_COMM_SELF) {
      c.defined = c.is_self = true;
      continue;
    }
    if (git->second.type != OTF2_GROUP_TYPE_COMM_GROUP) continue;
    c.defined = true;
    c.global_ranks = git->second.flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS;
    for (uint64_t m : git->second.members) {
      if (m >= d.ranks()) throw Error(anchor, "corrupt definitions: communicator " + std::to_string(id) +
                                                  " names rank " + std::to_string(m));
      c.position[uint32_t(m)] = c.members.size();
      c.members.push_back(uint32_t(m));
    }
  }

  // Node and metahost of every rank from the system tree.
  std::vector<std::string> metahost(d.ranks());
  d.rank_node.resize(d.ranks());
  for (uint32_t r = 0; r < d.ranks(); ++r) {
    uint32_t node = raw.lg_parent.count(raw.location_group[d.rank_location[r]])
                        ? raw.lg_parent[raw.location_group[d.rank_location[r]]]
                        : OTF2_UNDEFINED_SYSTEM_TREE_NODE;
    std::vector<uint32_t> chain;
    for (uint32_t n = node; n != OTF2_UNDEFINED_SYSTEM_TREE_NODE && chain.size() < 64;) {
      auto it = raw.tree.find(n);
      if (it == raw.tree.end()) break;
      chain.push_back(n);
      n = it->second.parent;
    }
    std::string node_name, machine_name, under_meta;
    for (size_t i = 0; i < chain.size(); ++i) {
      const TreeNode& t = raw.tree[chain[i]];
      std::string cls = str(raw, t.cls);
      if (cls == "node" && node_name.empty()) node_name = str(raw, t.name);
      if (cls == "machine" && machine_name.empty()) machine_name = str(raw, t.name);
      if (cls == "metacomputer" && i > 0) under_meta = str(raw, raw.tree[chain[i - 1]].name);
    }
    if (node_name.empty() && !chain.empty()) node_name = str(raw, raw.tree[chain[0]].name);
    if (node_name.empty()) throw Error(anchor, "missing definitions: rank " + std::to_string(r) + " has no system tree node");
    d.rank_node[r] = node_name;
    metahost[r] = !under_meta.empty() ? under_meta : !machine_name.empty() ? machine_name : node_name;
  }
  assign_metahosts(d, metahost);
  d.strings = std::move(raw.strings);  // ProgramBegin names the program by string ref
  return d;
}

}  // namespace gs

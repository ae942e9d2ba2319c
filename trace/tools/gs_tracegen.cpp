// gs-tracegen: writes small Score-P-layout OTF2 traces from a compact text spec (for the
// analyzer's golden tests) and large synthetic traces for the benchmark (--bench).
//
// Spec (one statement per line, '#' comments; times are integer ticks):
//   resolution TICKS_PER_SECOND           (default 1000000, i.e. 1 tick = 1 us)
//   layout scorep|gridscope               (system tree; default gridscope: metacomputer root)
//   rank R METAHOST NODE                  (ranks 0..n-1, in order)
//   comm NAME R0 R1 ...                   (extra communicator over world ranks; MPI_COMM_WORLD implicit)
//   offset R TIME OFFSET                  (ClockOffset definition for rank R)
//   R T enter REGION | R T leave [REGION]   (a named Leave may break the nesting: repair tests)
//   R T0 T1 region NAME                   (Enter/Leave)
//   R T0 T1 send NAME DST TAG BYTES [COMM]          (MpiSend at T0)
//   R T0 T1 isend NAME DST TAG BYTES REQ [COMM]     (MpiIsend at T0)
//   R T0 T1 recv NAME SRC TAG BYTES [COMM]          (MpiRecv at T1)
//   R T0 T1 irecv NAME REQ                           (MpiIrecvRequest at T0)
//   R T0 T1 wait NAME ITEM...   ITEM = s:REQ (MpiIsendComplete) | r:REQ:SRC:TAG:BYTES[:COMM] (MpiIrecv), at T1
//   R T0 T1 coll NAME COMM ROOT SENT RECV            (CollectiveBegin T0 / End T1; ROOT -1 = none)
// DST/SRC/ROOT are ranks in the communicator (world = world ranks).
//
// gs-tracegen SPEC OUTDIR | gs-tracegen --bench RANKS ITERATIONS OUTDIR
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gridscope/trace/mpi_names.hpp"

namespace {

[[noreturn]] void die(const std::string& where, const std::string& msg) {
  std::fprintf(stderr, "gs-tracegen: %s: %s\n", where.c_str(), msg.c_str());
  std::exit(2);
}

void check(OTF2_ErrorCode rc, const char* what) {
  if (rc != OTF2_SUCCESS) die(what, OTF2_Error_GetDescription(rc));
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks kFlush = {pre_flush, post_flush};

struct RankInfo { std::string metahost, node; };

// Collects definitions while events are written, then writes the global definitions.
class Writer {
 public:
  Writer(const std::string& dir, bool scorep_layout, uint64_t resolution)
      : scorep_(scorep_layout), resolution_(resolution) {
    archive_ = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!archive_) die(dir, "cannot create archive");
    check(OTF2_Archive_SetFlushCallbacks(archive_, &kFlush, nullptr), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive_), "collective callbacks");
    check(OTF2_Archive_SetCreator(archive_, "gs-tracegen"), "creator");
    check(OTF2_Archive_OpenEvtFiles(archive_), "open event files");
    comms_["MPI_COMM_WORLD"] = 0;
  }

  void add_rank(const RankInfo& r) { ranks_.push_back(r); writers_.push_back(nullptr); count_.push_back(0); }
  size_t nranks() const { return ranks_.size(); }

  uint32_t comm(const std::string& name) {
    auto it = comms_.find(name);
    if (it == comms_.end()) die(name, "unknown communicator");
    return it->second;
  }
  void add_comm(const std::string& name, const std::vector<uint64_t>& members) {
    comms_[name] = 2 + extra_.size();  // 0 world, 1 self
    extra_.push_back(members);
    extra_names_.push_back(name);
  }
  void add_offset(uint32_t rank, uint64_t t, int64_t off) { offsets_[rank].push_back({t, off}); }

  uint32_t region(const std::string& name) {
    auto it = regions_.find(name);
    if (it != regions_.end()) return it->second;
    uint32_t id = region_names_.size();
    region_names_.push_back(name);
    regions_[name] = id;
    return id;
  }

  OTF2_EvtWriter* w(uint32_t rank) {
    if (rank >= ranks_.size()) die("rank " + std::to_string(rank), "not declared");
    if (!writers_[rank]) writers_[rank] = OTF2_Archive_GetEvtWriter(archive_, rank);
    count_[rank]++;
    note_time_ = true;
    return writers_[rank];
  }
  void time(uint64_t t) {
    if (t < tmin_) tmin_ = t;
    if (t > tmax_) tmax_ = t;
  }

  void finish() {
    for (size_t r = 0; r < writers_.size(); ++r) {
      if (!writers_[r]) writers_[r] = OTF2_Archive_GetEvtWriter(archive_, r);
      uint64_t events = 0;
      check(OTF2_EvtWriter_GetNumberOfEvents(writers_[r], &events), "event count");
      count_[r] = events;
      check(OTF2_Archive_CloseEvtWriter(archive_, writers_[r]), "close event writer");
    }
    check(OTF2_Archive_CloseEvtFiles(archive_), "close event files");
    check(OTF2_Archive_OpenDefFiles(archive_), "open def files");
    for (size_t r = 0; r < ranks_.size(); ++r) {
      OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(archive_, r);
      for (auto& o : offsets_[r]) check(OTF2_DefWriter_WriteClockOffset(dw, o.first, o.second, 0.0), "offset");
      check(OTF2_Archive_CloseDefWriter(archive_, dw), "close def writer");
    }
    check(OTF2_Archive_CloseDefFiles(archive_), "close def files");
    write_global();
    check(OTF2_Archive_Close(archive_), "close archive");
  }

 private:
  uint32_t str(const std::string& s) {
    auto it = strings_.find(s);
    if (it != strings_.end()) return it->second;
    uint32_t id = string_list_.size();
    string_list_.push_back(s);
    strings_[s] = id;
    return id;
  }

  void write_global() {
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive_);
    // Build every name first so strings are written before they are used.
    std::vector<std::pair<uint32_t, uint32_t>> tree;  // (name, class)
    std::vector<int64_t> parent;
    std::map<std::string, uint32_t> machine_of, node_of;
    auto add_node = [&](const std::string& name, const std::string& cls, int64_t par) {
      tree.push_back({str(name), str(cls)});
      parent.push_back(par);
      return uint32_t(tree.size() - 1);
    };
    int64_t root = scorep_ ? -1 : add_node("metacomputer", "metacomputer", -1);
    uint32_t scorep_machine = scorep_ ? add_node("Linux", "machine", -1) : 0;
    std::vector<uint32_t> rank_node;
    for (auto& r : ranks_) {
      uint32_t machine = scorep_machine;
      if (!scorep_) {
        auto it = machine_of.find(r.metahost);
        machine = it != machine_of.end() ? it->second : (machine_of[r.metahost] = add_node(r.metahost, "machine", root));
      }
      std::string key = std::to_string(machine) + "/" + r.node;
      auto it = node_of.find(key);
      rank_node.push_back(it != node_of.end() ? it->second : (node_of[key] = add_node(r.node, "node", machine)));
    }
    std::vector<uint32_t> rank_name;
    for (size_t i = 0; i < ranks_.size(); ++i) rank_name.push_back(str("MPI Rank " + std::to_string(i)));
    uint32_t master = str("Master thread"), mpi = str("MPI"), empty = str(""), world = str("MPI_COMM_WORLD"),
             self = str("MPI_COMM_SELF");
    std::vector<uint32_t> rname;
    for (auto& n : region_names_) rname.push_back(str(n));
    std::vector<uint32_t> cname;
    for (auto& n : extra_names_) cname.push_back(str(n));

    for (size_t i = 0; i < string_list_.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteString(g, i, string_list_[i].c_str()), "string");
    uint64_t length = tmax_ >= tmin_ ? tmax_ - tmin_ : 0;
    check(OTF2_GlobalDefWriter_WriteClockProperties(g, resolution_, tmin_ == UINT64_MAX ? 0 : tmin_, length,
                                                    OTF2_UNDEFINED_TIMESTAMP), "clock");
    check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS), "paradigm");
    for (size_t i = 0; i < tree.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, i, tree[i].first, tree[i].second,
                                                      parent[i] < 0 ? OTF2_UNDEFINED_SYSTEM_TREE_NODE : parent[i]),
            "system tree");
    for (size_t i = 0; i < ranks_.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteLocationGroup(g, i, rank_name[i], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                     rank_node[i], OTF2_UNDEFINED_LOCATION_GROUP), "group");
    for (size_t i = 0; i < ranks_.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteLocation(g, i, master, OTF2_LOCATION_TYPE_CPU_THREAD, count_[i], i), "location");
    for (size_t i = 0; i < region_names_.size(); ++i) {
      const std::string& n = region_names_[i];
      bool is_mpi = n.rfind("MPI_", 0) == 0;
      check(OTF2_GlobalDefWriter_WriteRegion(g, i, rname[i], rname[i], empty, gs::region_role(n),
                                              is_mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                              is_mpi ? mpi : OTF2_UNDEFINED_STRING, 0, 0), "region");
    }
    std::vector<uint64_t> locs(ranks_.size());
    for (size_t i = 0; i < locs.size(); ++i) locs[i] = i;
    check(OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, locs.size(), locs.data()), "group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, locs.size(), locs.data()), "group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, 2, empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, 0, nullptr), "group");
    for (size_t i = 0; i < extra_.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteGroup(g, 3 + i, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                             OTF2_GROUP_FLAG_NONE, extra_[i].size(), extra_[i].data()), "group");
    check(OTF2_GlobalDefWriter_WriteComm(g, 0, world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
    check(OTF2_GlobalDefWriter_WriteComm(g, 1, self, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
    for (size_t i = 0; i < extra_.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteComm(g, 2 + i, cname[i], 3 + i, 0, OTF2_COMM_FLAG_NONE), "comm");
  }

  OTF2_Archive* archive_;
  bool scorep_;
  uint64_t resolution_;
  std::vector<RankInfo> ranks_;
  std::vector<OTF2_EvtWriter*> writers_;
  std::vector<uint64_t> count_;
  std::map<std::string, uint32_t> comms_, regions_, strings_;
  std::vector<std::vector<uint64_t>> extra_;
  std::vector<std::string> extra_names_, region_names_, string_list_;
  std::map<uint32_t, std::vector<std::pair<uint64_t, int64_t>>> offsets_;
  uint64_t tmin_ = UINT64_MAX, tmax_ = 0;
  bool note_time_ = false;

 public:
  bool scorep_layout() const { return scorep_; }
};

uint64_t num(const std::string& s, const std::string& where) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end) die(where, "bad number '" + s + "'");
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

int run_spec(const std::string& spec_path, const std::string& out) {
  std::ifstream in(spec_path);
  if (!in) die(spec_path, "cannot read spec");
  std::vector<std::vector<std::string>> lines;
  std::vector<int> lineno;
  std::string line, layout = "gridscope";
  uint64_t resolution = 1000000;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    std::vector<std::string> tok;
    for (std::string t; ls >> t;) tok.push_back(t);
    if (tok.empty()) continue;
    if (tok[0] == "resolution") resolution = num(tok.at(1), spec_path);
    else if (tok[0] == "layout") layout = tok.at(1);
    else { lines.push_back(tok); lineno.push_back(n); }
  }
  Writer w(out, layout == "scorep", resolution);
  std::map<uint32_t, std::vector<uint32_t>> stack;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto& t = lines[i];
    std::string where = spec_path + ":" + std::to_string(lineno[i]);
    auto arg = [&](size_t k) -> const std::string& {
      if (k >= t.size()) die(where, "missing argument");
      return t[k];
    };
    if (t[0] == "rank") { w.add_rank({arg(2), arg(3)}); continue; }
    if (t[0] == "comm") {
      std::vector<uint64_t> members;
      for (size_t k = 2; k < t.size(); ++k) members.push_back(num(t[k], where));
      w.add_comm(arg(1), members);
      continue;
    }
    if (t[0] == "offset") {
      w.add_offset(num(arg(1), where), num(arg(2), where), std::stoll(arg(3)));
      continue;
    }
    uint32_t r = num(arg(0), where);
    uint64_t t0 = num(arg(1), where);
    if (arg(2) == "enter") {
      w.time(t0);
      stack[r].push_back(w.region(arg(3)));
      OTF2_EvtWriter_Enter(w.w(r), nullptr, t0, stack[r].back());
      continue;
    }
    if (arg(2) == "leave" && t.size() > 3) {  // a named region: may be mis-nested or not open (repair tests)
      w.time(t0);
      uint32_t reg = w.region(t[3]);
      OTF2_EvtWriter_Leave(w.w(r), nullptr, t0, reg);
      auto& open = stack[r];
      auto it = std::find(open.rbegin(), open.rend(), reg);
      if (it != open.rend()) open.erase(std::next(it).base());
      continue;
    }
    if (arg(2) == "leave") {
      if (stack[r].empty()) die(where, "leave without enter");
      w.time(t0);
      OTF2_EvtWriter_Leave(w.w(r), nullptr, t0, stack[r].back());
      stack[r].pop_back();
      continue;
    }
    uint64_t t1 = num(arg(2), where);
    const std::string& kind = arg(3);
    uint32_t reg = w.region(arg(4));
    w.time(t0); w.time(t1);
    auto comm_at = [&](size_t k) { return k < t.size() ? w.comm(t[k]) : 0u; };
    OTF2_EvtWriter_Enter(w.w(r), nullptr, t0, reg);
    if (kind == "region") {
    } else if (kind == "send") {
      OTF2_EvtWriter_MpiSend(w.w(r), nullptr, t0, num(arg(5), where), comm_at(8), num(arg(6), where), num(arg(7), where));
    } else if (kind == "isend") {
      OTF2_EvtWriter_MpiIsend(w.w(r), nullptr, t0, num(arg(5), where), comm_at(9), num(arg(6), where),
                              num(arg(7), where), num(arg(8), where));
    } else if (kind == "recv") {
      OTF2_EvtWriter_MpiRecv(w.w(r), nullptr, t1, num(arg(5), where), comm_at(8), num(arg(6), where), num(arg(7), where));
    } else if (kind == "irecv") {
      OTF2_EvtWriter_MpiIrecvRequest(w.w(r), nullptr, t0, num(arg(5), where));
    } else if (kind == "wait") {
      for (size_t k = 5; k < t.size(); ++k) {
        auto f = split(t[k], ':');
        if (f[0] == "s" && f.size() == 2) {
          OTF2_EvtWriter_MpiIsendComplete(w.w(r), nullptr, t1, num(f[1], where));
        } else if (f[0] == "r" && (f.size() == 5 || f.size() == 6)) {
          OTF2_EvtWriter_MpiIrecv(w.w(r), nullptr, t1, num(f[2], where), f.size() == 6 ? w.comm(f[5]) : 0,
                                  num(f[3], where), num(f[4], where), num(f[1], where));
        } else {
          die(where, "bad wait item '" + t[k] + "'");
        }
      }
    } else if (kind == "coll") {
      long long root = std::stoll(arg(6));
      OTF2_EvtWriter_MpiCollectiveBegin(w.w(r), nullptr, t0);
      OTF2_EvtWriter_MpiCollectiveEnd(w.w(r), nullptr, t1, gs::collective_op(arg(4)), w.comm(arg(5)),
                                      root < 0 ? OTF2_UNDEFINED_UINT32 : uint32_t(root), num(arg(7), where),
                                      num(arg(8), where));
    } else {
      die(where, "unknown statement '" + kind + "'");
    }
    OTF2_EvtWriter_Leave(w.w(r), nullptr, t1, reg);
  }
  w.finish();
  return 0;
}

// A deterministic synthetic run for the benchmark: RANKS ranks on two metahosts, each
// iteration computes (with rank-dependent imbalance), exchanges halos with both ring
// neighbours (Irecv, Isend, Waitall), and every 16 iterations joins an Allreduce; every
// 64 a Barrier. Times are in ns.
int run_bench(uint32_t nranks, uint64_t iterations, const std::string& out) {
  Writer w(out, false, 1000000000ull);
  for (uint32_t r = 0; r < nranks; ++r)
    w.add_rank({r < nranks / 2 ? "siteA" : "siteB", (r < nranks / 2 ? "a" : "b") + std::to_string(r / 4)});
  uint32_t R_main = w.region("main"), R_iter = w.region("iteration"), R_comp = w.region("compute"),
           R_irecv = w.region("MPI_Irecv"), R_isend = w.region("MPI_Isend"), R_wait = w.region("MPI_Waitall"),
           R_allr = w.region("MPI_Allreduce"), R_bar = w.region("MPI_Barrier");
  std::vector<uint64_t> now(nranks, 1000), send_time(nranks);
  uint64_t seed = 88172645463325252ull;
  auto rnd = [&]() { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; };
  for (uint32_t r = 0; r < nranks; ++r) { w.time(now[r]); OTF2_EvtWriter_Enter(w.w(r), nullptr, now[r], R_main); }
  for (uint64_t it = 0; it < iterations; ++it) {
    for (uint32_t r = 0; r < nranks; ++r) {
      OTF2_EvtWriter* e = w.w(r);
      uint64_t t = now[r] + 10;
      OTF2_EvtWriter_Enter(e, nullptr, t, R_iter);
      OTF2_EvtWriter_Enter(e, nullptr, t + 5, R_comp);
      t += 5 + 2000 + (rnd() % 400) + (r % 3) * 150;
      OTF2_EvtWriter_Leave(e, nullptr, t, R_comp);
      OTF2_EvtWriter_Enter(e, nullptr, t + 5, R_irecv);
      OTF2_EvtWriter_MpiIrecvRequest(e, nullptr, t + 6, 1);
      OTF2_EvtWriter_Leave(e, nullptr, t + 10, R_irecv);
      OTF2_EvtWriter_Enter(e, nullptr, t + 15, R_irecv);
      OTF2_EvtWriter_MpiIrecvRequest(e, nullptr, t + 16, 2);
      OTF2_EvtWriter_Leave(e, nullptr, t + 20, R_irecv);
      OTF2_EvtWriter_Enter(e, nullptr, t + 25, R_isend);
      OTF2_EvtWriter_MpiIsend(e, nullptr, t + 26, (r + 1) % nranks, 0, 7, 4096, 3);
      OTF2_EvtWriter_Leave(e, nullptr, t + 30, R_isend);
      OTF2_EvtWriter_Enter(e, nullptr, t + 35, R_isend);
      OTF2_EvtWriter_MpiIsend(e, nullptr, t + 36, (r + nranks - 1) % nranks, 0, 8, 4096, 4);
      OTF2_EvtWriter_Leave(e, nullptr, t + 40, R_isend);
      send_time[r] = t + 26;
      now[r] = t + 45;  // Waitall enter
    }
    for (uint32_t r = 0; r < nranks; ++r) {
      uint32_t left = (r + nranks - 1) % nranks, right = (r + 1) % nranks;
      bool remote = (left < nranks / 2) != (r < nranks / 2) || (right < nranks / 2) != (r < nranks / 2);
      uint64_t arrive = std::max(send_time[left], send_time[right]) + (remote ? 800 : 50);
      uint64_t done = std::max(now[r] + 20, arrive);
      OTF2_EvtWriter* e = w.w(r);
      OTF2_EvtWriter_Enter(e, nullptr, now[r], R_wait);
      OTF2_EvtWriter_MpiIsendComplete(e, nullptr, done - 4, 3);
      OTF2_EvtWriter_MpiIsendComplete(e, nullptr, done - 3, 4);
      OTF2_EvtWriter_MpiIrecv(e, nullptr, done - 2, left, 0, 7, 4096, 1);
      OTF2_EvtWriter_MpiIrecv(e, nullptr, done - 1, right, 0, 8, 4096, 2);
      OTF2_EvtWriter_Leave(e, nullptr, done, R_wait);
      now[r] = done;
    }
    bool allreduce = it % 16 == 15, barrier = it % 64 == 63;
    for (int k = 0; k < 2; ++k) {
      if (!(k == 0 ? allreduce : barrier)) continue;
      uint64_t latest = 0;
      for (uint32_t r = 0; r < nranks; ++r) latest = std::max(latest, now[r] + 5);
      for (uint32_t r = 0; r < nranks; ++r) {
        OTF2_EvtWriter* e = w.w(r);
        uint32_t reg = k == 0 ? R_allr : R_bar;
        uint64_t b = now[r] + 5, end = latest + 1500 + (r % 4) * 10;
        OTF2_EvtWriter_Enter(e, nullptr, b, reg);
        OTF2_EvtWriter_MpiCollectiveBegin(e, nullptr, b + 1);
        OTF2_EvtWriter_MpiCollectiveEnd(e, nullptr, end - 1,
                                        k == 0 ? OTF2_COLLECTIVE_OP_ALLREDUCE : OTF2_COLLECTIVE_OP_BARRIER, 0,
                                        OTF2_UNDEFINED_UINT32, k == 0 ? 8 * nranks : 0, k == 0 ? 8 * nranks : 0);
        OTF2_EvtWriter_Leave(e, nullptr, end, reg);
        now[r] = end;
      }
    }
    for (uint32_t r = 0; r < nranks; ++r) {
      now[r] += 5;
      OTF2_EvtWriter_Leave(w.w(r), nullptr, now[r], R_iter);
    }
  }
  for (uint32_t r = 0; r < nranks; ++r) {
    now[r] += 10;
    w.time(now[r]);
    OTF2_EvtWriter_Leave(w.w(r), nullptr, now[r], R_main);
  }
  // Event counts per location are approximate here (writer counts calls to w()); the
  // reader does not rely on them.
  w.finish();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--bench")
    return run_bench(std::strtoul(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10), argv[4]);
  if (argc == 3) return run_spec(argv[1], argv[2]);
  std::fprintf(stderr, "usage: gs-tracegen SPEC OUTDIR | gs-tracegen --bench RANKS ITERATIONS OUTDIR\n");
  return 2;
}

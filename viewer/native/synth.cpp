// `synth`: a synthetic Score-P-layout trace of a ring exchange plus Allreduce on a
// metacomputer (system tree metacomputer -> machine per metahost -> node -> MPI Rank N).
// The viewer's tests and benchmarks use it: any size, two or more metahosts, and a
// computation region whose name can be anything (the XSS test names it with HTML).
//
// Timing model (deterministic for a seed): each iteration every rank computes (ranks of
// later metahosts compute longer, so receivers wait: Late Sender), then even ranks send to
// the right neighbour before receiving from the left one, odd ranks the other way round;
// messages between metahosts take longer (WAN). An Allreduce closes the iteration.
#include <otf2/otf2.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"

namespace gs {
namespace {

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

struct Rng {  // xorshift64*: small, fast and the same on every machine
  uint64_t s;
  double next() {
    s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
    return static_cast<double>((s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
  }
};

enum Region : uint32_t { kMain, kCompute, kSend, kRecv, kAllreduce, kRegionCount };
constexpr uint64_t kOffset = 1000000000000ull;  // global offset (ticks, 1 GHz timer)
constexpr uint32_t kWorld = 0, kSelf = 1;

struct Options {
  int ranks = 8, metahosts = 2, iterations = 10, nodes = 2;
  uint64_t seed = 1;
  std::string region = "compute";
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(a, "needs a value");
      return argv[++i];
    };
    try {
      if (a == "--ranks") o.ranks = std::stoi(value());
      else if (a == "--metahosts") o.metahosts = std::stoi(value());
      else if (a == "--iterations") o.iterations = std::stoi(value());
      else if (a == "--nodes-per-metahost") o.nodes = std::stoi(value());
      else if (a == "--seed") o.seed = std::stoull(value());
      else if (a == "--region-name") o.region = value();
      else fail(a, "unknown option");
    } catch (const std::logic_error&) {
      fail(a, "bad number");
    }
  }
  if (o.ranks < 2 || o.ranks % 2) fail("--ranks", "want an even number >= 2");
  if (o.metahosts < 1 || o.metahosts > o.ranks) fail("--metahosts", "want 1..ranks");
  if (o.iterations < 1 || o.nodes < 1) fail("--iterations", "want >= 1");
  return o;
}

void ok(OTF2_ErrorCode rc, const std::string& where) {
  if (rc != OTF2_SUCCESS) fail(where, std::string("OTF2 write failed: ") + OTF2_Error_GetName(rc));
}

}  // namespace

int run_synth(int argc, char** argv) {
  if (argc < 1) fail("synth", "usage: synth OUTDIR [options]");
  std::string outdir = argv[0];
  Options o = parse(argc - 1, argv + 1);
  const int n = o.ranks;
  auto metahost_of = [&](int r) { return static_cast<int>(static_cast<int64_t>(r) * o.metahosts / n); };
  auto latency = [&](int a, int b) -> uint64_t {
    return metahost_of(a) == metahost_of(b) ? 4000 : 900000;  // 4 us local, 0.9 ms WAN
  };

  OTF2_Archive* ar = OTF2_Archive_Open(outdir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20,
                                       4 << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar) fail(outdir, "cannot create OTF2 archive (does it exist already?)");
  ok(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, nullptr), outdir);
  ok(OTF2_Archive_SetSerialCollectiveCallbacks(ar), outdir);
  ok(OTF2_Archive_SetCreator(ar, "gridscope-tracetool synth"), outdir);
  ok(OTF2_Archive_OpenEvtFiles(ar), outdir);

  std::vector<OTF2_EvtWriter*> w(n);
  for (int r = 0; r < n; ++r) {
    w[r] = OTF2_Archive_GetEvtWriter(ar, r);
    if (!w[r]) fail(outdir, "cannot create event writer");
  }
  std::vector<uint64_t> t(n, kOffset), events(n, 0);
  auto enter = [&](int r, uint64_t ts, uint32_t reg) { ok(OTF2_EvtWriter_Enter(w[r], nullptr, ts, reg), outdir); ++events[r]; };
  auto leave = [&](int r, uint64_t ts, uint32_t reg) { ok(OTF2_EvtWriter_Leave(w[r], nullptr, ts, reg), outdir); ++events[r]; };

  Rng rng{o.seed * 0x9E3779B97F4A7C15ull + 1};
  for (int r = 0; r < n; ++r) {
    t[r] += static_cast<uint64_t>(rng.next() * 2000);
    enter(r, t[r], kMain);
  }
  const uint64_t bytes = 65536;
  std::vector<uint64_t> compute_end(n), send_time(n), ready(n);
  for (int it = 0; it < o.iterations; ++it) {
    for (int r = 0; r < n; ++r) {
      double slow = 1.0 + 0.6 * metahost_of(r);
      uint64_t c = static_cast<uint64_t>(100000.0 * slow * (0.8 + 0.4 * rng.next()));
      enter(r, t[r], kCompute);
      compute_end[r] = t[r] + c;
      leave(r, compute_end[r], kCompute);
    }
    // even ranks send first (eager), then odd ranks receive and pass on
    for (int r = 0; r < n; r += 2) {
      uint64_t e = compute_end[r];
      enter(r, e, kSend);
      send_time[r] = e + 200;
      ok(OTF2_EvtWriter_MpiSend(w[r], nullptr, send_time[r], (r + 1) % n, kWorld, it, bytes), outdir);
      ++events[r];
      leave(r, e + 1000, kSend);
      ready[r] = e + 1000;
    }
    for (int r = 1; r < n; r += 2) {
      int src = r - 1;
      uint64_t e = compute_end[r];
      enter(r, e, kRecv);
      uint64_t done = std::max(e + 300, send_time[src] + latency(src, r)) + 500;
      ok(OTF2_EvtWriter_MpiRecv(w[r], nullptr, done, src, kWorld, it, bytes), outdir);
      ++events[r];
      leave(r, done + 100, kRecv);
      uint64_t s0 = done + 100;
      enter(r, s0, kSend);
      send_time[r] = s0 + 200;
      ok(OTF2_EvtWriter_MpiSend(w[r], nullptr, send_time[r], (r + 1) % n, kWorld, it, bytes), outdir);
      ++events[r];
      leave(r, s0 + 1000, kSend);
      ready[r] = s0 + 1000;
    }
    for (int r = 0; r < n; r += 2) {
      int src = (r - 1 + n) % n;
      uint64_t e = ready[r];
      enter(r, e, kRecv);
      uint64_t done = std::max(e + 300, send_time[src] + latency(src, r)) + 500;
      ok(OTF2_EvtWriter_MpiRecv(w[r], nullptr, done, src, kWorld, it, bytes), outdir);
      ++events[r];
      leave(r, done + 100, kRecv);
      ready[r] = done + 100;
    }
    uint64_t latest = *std::max_element(ready.begin(), ready.end());
    uint64_t coll = latest + (o.metahosts > 1 ? 2 * 900000 : 8000) + 2000;
    for (int r = 0; r < n; ++r) {
      enter(r, ready[r], kAllreduce);
      ok(OTF2_EvtWriter_MpiCollectiveBegin(w[r], nullptr, ready[r] + 100), outdir);
      ok(OTF2_EvtWriter_MpiCollectiveEnd(w[r], nullptr, coll - 100, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                         kWorld, OTF2_UNDEFINED_UINT32, 8ull * n, 8ull * n), outdir);
      events[r] += 2;
      leave(r, coll, kAllreduce);
      t[r] = coll + static_cast<uint64_t>(rng.next() * 500);
    }
  }
  uint64_t end = 0;
  for (int r = 0; r < n; ++r) {
    leave(r, t[r], kMain);
    end = std::max(end, t[r]);
    ok(OTF2_Archive_CloseEvtWriter(ar, w[r]), outdir);
  }
  ok(OTF2_Archive_CloseEvtFiles(ar), outdir);

  ok(OTF2_Archive_OpenDefFiles(ar), outdir);
  for (int r = 0; r < n; ++r) {
    OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(ar, r);
    ok(OTF2_Archive_CloseDefWriter(ar, dw), outdir);
  }
  ok(OTF2_Archive_CloseDefFiles(ar), outdir);

  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(ar);
  uint32_t next_string = 0;
  auto str = [&](const std::string& s) {
    ok(OTF2_GlobalDefWriter_WriteString(g, next_string, s.c_str()), outdir);
    return next_string++;
  };
  ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, kOffset, end - kOffset,
                                               OTF2_UNDEFINED_TIMESTAMP), outdir);
  uint32_t s_empty = str(""), s_mpi = str("MPI");
  ok(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s_mpi, OTF2_PARADIGM_CLASS_PROCESS), outdir);

  // system tree: metacomputer -> machine (metahost) -> node -> MPI Rank N
  static const char* names[] = {"jsc", "brs", "fzj", "hlrs"};
  uint32_t s_meta = str("metacomputer"), s_machine = str("machine"), s_node = str("node");
  ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, str("grid"), s_meta, OTF2_UNDEFINED_SYSTEM_TREE_NODE), outdir);
  auto metahost_name = [&](int m) {
    return m < 4 ? std::string(names[m]) : "mh" + std::to_string(m);
  };
  for (int m = 0; m < o.metahosts; ++m)
    ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1 + m, str(metahost_name(m)), s_machine, 0), outdir);
  auto node_of = [&](int r) {  // ranks of a metahost spread over its nodes in blocks
    int m = metahost_of(r);
    int first = 0;
    while (metahost_of(first) != m) ++first;
    int count = 0;
    while (first + count < n && metahost_of(first + count) == m) ++count;
    return 1 + o.metahosts + m * o.nodes + static_cast<int>(static_cast<int64_t>(r - first) * o.nodes / count);
  };
  for (int m = 0; m < o.metahosts; ++m)
    for (int k = 0; k < o.nodes; ++k)
      ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(
             g, 1 + o.metahosts + m * o.nodes + k,
             str(metahost_name(m) + "-node" + std::to_string(k)), s_node, 1 + m), outdir);
  uint32_t s_master = str("Master thread");
  for (int r = 0; r < n; ++r)
    ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, str("MPI Rank " + std::to_string(r)),
                                               OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of(r),
                                               OTF2_UNDEFINED_LOCATION_GROUP), outdir);
  for (int r = 0; r < n; ++r)
    ok(OTF2_GlobalDefWriter_WriteLocation(g, r, s_master, OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r), outdir);

  uint32_t s_file = str("synth.c");
  auto region = [&](uint32_t id, const std::string& name, OTF2_RegionRole role, OTF2_Paradigm p, uint32_t file) {
    uint32_t s = str(name);
    ok(OTF2_GlobalDefWriter_WriteRegion(g, id, s, s, s_empty, role, p, OTF2_REGION_FLAG_NONE, file, 0, 0), outdir);
  };
  region(kMain, "main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, s_file);
  region(kCompute, o.region, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, s_file);
  region(kSend, "MPI_Send", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, s_mpi);
  region(kRecv, "MPI_Recv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, s_mpi);
  region(kAllreduce, "MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI, s_mpi);

  std::vector<uint64_t> members(n);
  for (int r = 0; r < n; ++r) members[r] = r;
  ok(OTF2_GlobalDefWriter_WriteGroup(g, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, n, members.data()), outdir);
  ok(OTF2_GlobalDefWriter_WriteGroup(g, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, n, members.data()), outdir);
  ok(OTF2_GlobalDefWriter_WriteGroup(g, 2, s_empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, 0, nullptr), outdir);
  ok(OTF2_GlobalDefWriter_WriteComm(g, kWorld, str("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), outdir);
  ok(OTF2_GlobalDefWriter_WriteComm(g, kSelf, str("MPI_COMM_SELF"), 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), outdir);
  ok(OTF2_Archive_Close(ar), outdir);
  uint64_t total = 0;
  for (auto e : events) total += e;
  std::printf("%s/traces.otf2: %d ranks, %d metahosts, %llu events\n", outdir.c_str(), n, o.metahosts,
              static_cast<unsigned long long>(total));
  return 0;
}

}  // namespace gs

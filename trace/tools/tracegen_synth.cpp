// `gs-tracegen synth OUTDIR [options]`: a synthetic Score-P-layout trace of a ring exchange
// plus Allreduce on a metacomputer (system tree metacomputer -> machine per metahost ->
// node -> MPI Rank N). The viewer's tests and benchmarks use it: any size, one or more
// metahosts, and a computation region whose name can be anything (the XSS test names it
// with HTML).
//
// Timing model (deterministic for a seed): each iteration every rank computes (ranks of
// later metahosts compute longer, so receivers wait: Late Sender), then even ranks send to
// the right neighbour before receiving from the left one, odd ranks the other way round;
// messages between metahosts take longer (WAN). An Allreduce closes the iteration.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "gridscope/trace/writer.hpp"
#include "tracegen.hpp"

namespace gs::tracegen {
namespace {

struct Rng {  // xorshift64*: small, fast and the same on every machine
  uint64_t s;
  double next() {
    s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
    return static_cast<double>((s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
  }
};

constexpr uint64_t kOffset = 1000000000000ull;  // global offset (ticks, 1 GHz timer)

struct Options {
  std::string out;
  int ranks = 8, metahosts = 2, iterations = 10, nodes = 2;
  uint64_t seed = 1;
  std::string region = "compute";
};

Options parse(const std::vector<std::string>& args) {
  if (args.empty() || args[0].empty() || args[0][0] == '-') die("synth", "usage: synth OUTDIR [options]");
  Options o;
  o.out = args[0];
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i + 1 >= args.size()) die(a, "needs a value");
    const std::string& v = args[++i];
    try {
      if (a == "--ranks") o.ranks = std::stoi(v);
      else if (a == "--metahosts") o.metahosts = std::stoi(v);
      else if (a == "--iterations") o.iterations = std::stoi(v);
      else if (a == "--nodes-per-metahost") o.nodes = std::stoi(v);
      else if (a == "--seed") o.seed = std::stoull(v);
      else if (a == "--region-name") o.region = v;
      else die(a, "unknown option");
    } catch (const std::logic_error&) {
      die(a, "bad number");
    }
  }
  if (o.ranks < 2 || o.ranks % 2) die("--ranks", "want an even number >= 2");
  if (o.metahosts < 1 || o.metahosts > o.ranks) die("--metahosts", "want 1..ranks");
  if (o.iterations < 1) die("--iterations", "want >= 1");
  if (o.nodes < 1) die("--nodes-per-metahost", "want >= 1");
  return o;
}

}  // namespace

int run_synth(const std::vector<std::string>& args) {
  const Options o = parse(args);
  const int n = o.ranks;
  auto metahost_of = [&](int r) { return static_cast<int>(static_cast<int64_t>(r) * o.metahosts / n); };
  auto latency = [&](int a, int b) -> uint64_t {
    return metahost_of(a) == metahost_of(b) ? 4000 : 900000;  // 4 us local, 0.9 ms WAN
  };

  WriterOptions opt;
  opt.resolution = 1000000000ull;
  opt.fixed_global_offset = true;
  opt.global_offset = kOffset;
  opt.creator = "gs-tracegen synth";
  TraceWriter w(o.out, opt);

  // system tree: metacomputer -> machine (metahost) -> node; ranks of a metahost spread
  // over its nodes in blocks
  static const char* names[] = {"jsc", "brs", "fzj", "hlrs"};
  auto metahost_name = [&](int m) { return m < 4 ? std::string(names[m]) : "mh" + std::to_string(m); };
  uint32_t root = w.tree_node("grid", "metacomputer");
  std::vector<uint32_t> machine_ids, node_ids;
  for (int m = 0; m < o.metahosts; ++m) machine_ids.push_back(w.tree_node(metahost_name(m), "machine", root));
  for (int m = 0; m < o.metahosts; ++m)
    for (int k = 0; k < o.nodes; ++k)
      node_ids.push_back(w.tree_node(metahost_name(m) + "-node" + std::to_string(k), "node", machine_ids[m]));
  for (int r = 0; r < n; ++r) {
    int m = metahost_of(r), first = 0, count = 0;
    while (metahost_of(first) != m) ++first;
    while (first + count < n && metahost_of(first + count) == m) ++count;
    w.add_rank(node_ids[m * o.nodes + static_cast<int>(static_cast<int64_t>(r - first) * o.nodes / count)]);
  }
  const std::string file = "synth.c";
  const uint32_t kMain = w.region("main", file), kCompute = w.region(o.region, file), kSend = w.region("MPI_Send"),
                 kRecv = w.region("MPI_Recv"), kAllreduce = w.region("MPI_Allreduce");

  std::vector<uint64_t> t(n, kOffset);
  Rng rng{o.seed * 0x9E3779B97F4A7C15ull + 1};
  for (int r = 0; r < n; ++r) {
    t[r] += static_cast<uint64_t>(rng.next() * 2000);
    w.enter(r, t[r], kMain);
  }
  const uint64_t bytes = 65536;
  std::vector<uint64_t> compute_end(n), send_time(n), ready(n);
  auto send = [&](int r, uint64_t s0, int it) {
    w.enter(r, s0, kSend);
    send_time[r] = s0 + 200;
    w.send(r, send_time[r], (r + 1) % n, kWorldComm, it, bytes);
    w.leave(r, s0 + 1000, kSend);
    ready[r] = s0 + 1000;
  };
  auto receive = [&](int r, uint64_t e, int it) {
    int src = (r - 1 + n) % n;
    w.enter(r, e, kRecv);
    uint64_t done = std::max(e + 300, send_time[src] + latency(src, r)) + 500;
    w.recv(r, done, src, kWorldComm, it, bytes);
    w.leave(r, done + 100, kRecv);
    ready[r] = done + 100;
  };
  for (int it = 0; it < o.iterations; ++it) {
    for (int r = 0; r < n; ++r) {
      double slow = 1.0 + 0.6 * metahost_of(r);
      uint64_t c = static_cast<uint64_t>(100000.0 * slow * (0.8 + 0.4 * rng.next()));
      w.enter(r, t[r], kCompute);
      compute_end[r] = t[r] + c;
      w.leave(r, compute_end[r], kCompute);
    }
    for (int r = 0; r < n; r += 2) send(r, compute_end[r], it);  // even ranks send first (eager)
    for (int r = 1; r < n; r += 2) {                              // odd ranks receive, pass on
      receive(r, compute_end[r], it);
      send(r, ready[r], it);
    }
    for (int r = 0; r < n; r += 2) receive(r, ready[r], it);
    uint64_t latest = *std::max_element(ready.begin(), ready.end());
    uint64_t coll = latest + (o.metahosts > 1 ? 2 * 900000 : 8000) + 2000;
    for (int r = 0; r < n; ++r) {
      w.enter(r, ready[r], kAllreduce);
      w.collective_begin(r, ready[r] + 100);
      w.collective_end(r, coll - 100, OTF2_COLLECTIVE_OP_ALLREDUCE, kWorldComm, kNoRoot, 8ull * n, 8ull * n);
      w.leave(r, coll, kAllreduce);
      t[r] = coll + static_cast<uint64_t>(rng.next() * 500);
    }
  }
  for (int r = 0; r < n; ++r) w.leave(r, t[r], kMain);
  uint64_t total = w.finish();
  std::printf("%s/traces.otf2: %d ranks, %d metahosts, %llu events\n", o.out.c_str(), n, o.metahosts,
              static_cast<unsigned long long>(total));
  return 0;
}

}  // namespace gs::tracegen

// `gs-tracegen --bench RANKS ITERATIONS OUTDIR [options]`: a deterministic synthetic run for
// the analyzer's benchmarks. RANKS ranks on two metahosts (4 per node); each iteration
// computes, exchanges halos with both ring neighbours (Irecv, Isend, Waitall), every 16
// iterations joins an Allreduce, every 64 a Barrier. Times are in ns.
//
// Shape options (benchmarks/analyzer/bench_matrix.py); without them the output is the
// historical --bench trace, byte for byte:
//   --waits default   compute time varies per rank and iteration: some receives wait
//   --waits few       equal compute and one latency (50 ns) on every link: the ranks stay in
//                     lockstep, Late Senders only where the collectives' staggered ends
//                     ((r % 4) * 10 ns) ripple through the ring for an iteration or two
//   --waits all       red-black exchange, even ranks compute longer: odd ranks receive
//                     before their neighbours send, even ranks before the odd replies come,
//                     so every receive is a Late Sender (RANKS must be even)
//   --depth N         the exchange sits under N nested user regions (long call paths)
//   --clock-offsets K K >= 2 ClockOffsets per location (libotf2 interpolates between them)
//   --collectives-every N  an Allreduce and a Barrier every N iterations (collective-heavy
//                     traces; without it, Allreduce every 16 and Barrier every 64)
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gridscope/trace/writer.hpp"
#include "tracegen.hpp"

namespace gs::tracegen {
namespace {

enum class Waits { Default, Few, All };

struct Shape {
  uint32_t ranks = 0;
  uint64_t iterations = 0;
  std::string out;
  Waits waits = Waits::Default;
  uint32_t depth = 0;
  uint32_t clock_offsets = 0;
  uint32_t allreduce_every = 16, barrier_every = 64;
};

Shape parse(const std::vector<std::string>& args) {
  if (args.size() < 3) die("--bench", "want RANKS ITERATIONS OUTDIR [options]");
  Shape s;
  s.ranks = number(args[0], "RANKS");
  s.iterations = number(args[1], "ITERATIONS");
  s.out = args[2];
  for (size_t i = 3; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i + 1 >= args.size()) die(a, "needs a value");
    const std::string& v = args[++i];
    if (a == "--waits") {
      if (v == "default") s.waits = Waits::Default;
      else if (v == "few") s.waits = Waits::Few;
      else if (v == "all") s.waits = Waits::All;
      else die(a, "want default, few or all");
    } else if (a == "--depth") {
      s.depth = number(v, a);
    } else if (a == "--clock-offsets") {
      s.clock_offsets = number(v, a);
      if (s.clock_offsets == 1) die(a, "want 0 or >= 2 (libotf2 ignores a single offset)");
    } else if (a == "--collectives-every") {
      s.allreduce_every = s.barrier_every = number(v, a);
      if (s.allreduce_every == 0) die(a, "want >= 1");
    } else {
      die(a, "unknown option");
    }
  }
  if (s.ranks < 2) die("RANKS", "want >= 2");
  if (s.waits == Waits::All && s.ranks % 2) die("--waits all", "wants an even number of ranks");
  return s;
}

}  // namespace

int run_bench(const std::vector<std::string>& args) {
  const Shape shape = parse(args);
  const uint32_t nranks = shape.ranks;
  WriterOptions opt;
  opt.resolution = 1000000000ull;
  opt.creator = "gs-tracegen";
  TraceWriter w(shape.out, opt);
  for (uint32_t r = 0; r < nranks; ++r)
    w.add_rank(r < nranks / 2 ? "siteA" : "siteB", (r < nranks / 2 ? "a" : "b") + std::to_string(r / 4));
  const uint32_t R_main = w.region("main"), R_iter = w.region("iteration"), R_comp = w.region("compute"),
                 R_irecv = w.region("MPI_Irecv"), R_isend = w.region("MPI_Isend"), R_wait = w.region("MPI_Waitall"),
                 R_allr = w.region("MPI_Allreduce"), R_bar = w.region("MPI_Barrier");
  std::vector<uint32_t> R_level;  // "exchange_1" outermost
  for (uint32_t d = 1; d <= shape.depth; ++d) R_level.push_back(w.region("exchange_" + std::to_string(d)));
  const uint64_t depth = shape.depth;
  std::vector<uint64_t> now(nranks, 1000), send_time(nranks);
  uint64_t seed = 88172645463325252ull;
  auto rnd = [&]() { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; };
  auto compute_ticks = [&](uint32_t r) -> uint64_t {
    switch (shape.waits) {
      case Waits::Default: return 2000 + (rnd() % 400) + (r % 3) * 150;
      case Waits::Few: return 2000;
      case Waits::All: return 2000 + (r % 2 ? 0 : 600);  // even ranks are late
    }
    return 0;
  };
  auto remote = [&](uint32_t a, uint32_t b) { return (a < nranks / 2) != (b < nranks / 2); };
  auto latency = [&](uint32_t a, uint32_t b) -> uint64_t {
    // --waits few: one latency everywhere, or the WAN links would delay their ranks every
    // iteration and the ring would wait for them
    return remote(a, b) && shape.waits != Waits::Few ? 800 : 50;
  };
  auto enter_levels = [&](uint32_t r, uint64_t t) {
    for (uint64_t d = 0; d < depth; ++d) w.enter(r, t + d, R_level[d]);
  };
  auto leave_levels = [&](uint32_t r, uint64_t t) {
    for (uint64_t d = depth; d-- > 0;) w.leave(r, t + (depth - 1 - d), R_level[d]);
  };
  // Irecv x2 then Isend x2 from t on (the historical order); returns the Isend time.
  auto post = [&](uint32_t r, uint64_t t) {
    w.enter(r, t + 5, R_irecv);
    w.irecv_request(r, t + 6, 1);
    w.leave(r, t + 10, R_irecv);
    w.enter(r, t + 15, R_irecv);
    w.irecv_request(r, t + 16, 2);
    w.leave(r, t + 20, R_irecv);
  };
  auto send_both = [&](uint32_t r, uint64_t t) {  // Isends at t + 1, t + 11
    w.enter(r, t, R_isend);
    w.isend(r, t + 1, (r + 1) % nranks, 0, 7, 4096, 3);
    w.leave(r, t + 5, R_isend);
    w.enter(r, t + 10, R_isend);
    w.isend(r, t + 11, (r + nranks - 1) % nranks, 0, 8, 4096, 4);
    w.leave(r, t + 15, R_isend);
  };

  for (uint32_t r = 0; r < nranks; ++r) w.enter(r, now[r], R_main);
  for (uint64_t it = 0; it < shape.iterations; ++it) {
    for (uint32_t r = 0; r < nranks; ++r) {
      uint64_t t = now[r] + 10;
      w.enter(r, t, R_iter);
      w.enter(r, t + 5, R_comp);
      t += 5 + compute_ticks(r);
      w.leave(r, t, R_comp);
      enter_levels(r, t + 1);
      t += depth;
      if (shape.waits == Waits::All && r % 2) {  // odd: receive first (Waitall below), send after
        post(r, t);
        now[r] = t + 25;
        continue;
      }
      post(r, t);
      send_both(r, t + 25);
      send_time[r] = t + 26;
      now[r] = t + 45;  // Waitall enter
    }
    auto waitall = [&](uint32_t r, uint64_t enter, uint64_t done, bool sends, bool recvs) {
      uint32_t left = (r + nranks - 1) % nranks, right = (r + 1) % nranks;
      w.enter(r, enter, R_wait);
      if (sends) {
        w.isend_complete(r, done - 4, 3);
        w.isend_complete(r, done - 3, 4);
      }
      if (recvs) {
        w.irecv(r, done - 2, left, 0, 7, 4096, 1);
        w.irecv(r, done - 1, right, 0, 8, 4096, 2);
      }
      w.leave(r, done, R_wait);
    };
    auto arrival = [&](uint32_t r) {
      uint32_t left = (r + nranks - 1) % nranks, right = (r + 1) % nranks;
      if (shape.waits == Waits::Default)  // historical: the slower link's latency for both
        return std::max(send_time[left], send_time[right]) + (remote(r, left) || remote(r, right) ? 800 : 50);
      return std::max(send_time[left] + latency(left, r), send_time[right] + latency(right, r));
    };
    if (shape.waits == Waits::All) {
      for (uint32_t r = 1; r < nranks; r += 2) {  // odd ranks: receive, then send
        uint64_t done = std::max(now[r] + 20, arrival(r));
        waitall(r, now[r], done, false, true);
        send_both(r, done + 5);
        send_time[r] = done + 6;
        waitall(r, done + 25, done + 45, true, false);
        now[r] = done + 45;
      }
      for (uint32_t r = 0; r < nranks; r += 2) {  // even ranks: sends done, then receive
        waitall(r, now[r], now[r] + 20, true, false);
        uint64_t enter = now[r] + 25, done = std::max(enter + 20, arrival(r));
        waitall(r, enter, done, false, true);
        now[r] = done;
      }
    } else {
      for (uint32_t r = 0; r < nranks; ++r) {
        uint64_t done = std::max(now[r] + 20, arrival(r));
        waitall(r, now[r], done, true, true);
        now[r] = done;
      }
    }
    for (uint32_t r = 0; r < nranks; ++r) {
      leave_levels(r, now[r] + 1);
      now[r] += depth;
    }
    bool allreduce = it % shape.allreduce_every == shape.allreduce_every - 1,
         barrier = it % shape.barrier_every == shape.barrier_every - 1;
    for (int k = 0; k < 2; ++k) {
      if (!(k == 0 ? allreduce : barrier)) continue;
      uint64_t latest = 0;
      for (uint32_t r = 0; r < nranks; ++r) latest = std::max(latest, now[r] + 5);
      for (uint32_t r = 0; r < nranks; ++r) {
        uint32_t reg = k == 0 ? R_allr : R_bar;
        uint64_t b = now[r] + 5, end = latest + 1500 + (r % 4) * 10;
        w.enter(r, b, reg);
        w.collective_begin(r, b + 1);
        w.collective_end(r, end - 1, k == 0 ? OTF2_COLLECTIVE_OP_ALLREDUCE : OTF2_COLLECTIVE_OP_BARRIER, 0, kNoRoot,
                         k == 0 ? 8 * nranks : 0, k == 0 ? 8 * nranks : 0);
        w.leave(r, end, reg);
        now[r] = end;
      }
    }
    for (uint32_t r = 0; r < nranks; ++r) {
      now[r] += 5;
      w.leave(r, now[r], R_iter);
    }
  }
  for (uint32_t r = 0; r < nranks; ++r) {
    now[r] += 10;
    w.leave(r, now[r], R_main);
  }
  // Clock offsets: a small rank-dependent drift (a few ns, well below the 50 ns latency,
  // so no message goes backwards), K points over the run.
  for (uint32_t r = 0; r < nranks && shape.clock_offsets >= 2; ++r)
    for (uint32_t k = 0; k < shape.clock_offsets; ++k) {
      uint64_t at = 1000 + (now[r] - 1000) * k / (shape.clock_offsets - 1);
      w.clock_offset(r, at, int64_t(r % 5) + int64_t(k % 3), 0.0);
    }
  uint64_t events = w.finish();
  std::printf("%s/traces.otf2: %u ranks, %llu events\n", shape.out.c_str(), nranks,
              static_cast<unsigned long long>(events));
  return 0;
}

}  // namespace gs::tracegen

// The clock correction (clc.cpp): its three pieces on hand-made locations, then the whole
// correction on synthetic traces (every clock condition holds afterwards, order is kept).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>

#include "clc.hpp"
#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/matching.hpp"
#include "gridscope/trace/reader.hpp"
#include "replay.hpp"

namespace {

const std::vector<int64_t> kNone6(6, gs::kNoBound);

TEST(ForwardClock, WithoutBoundsIsTheOriginalClock) {
  std::vector<int64_t> t = {0, 3, 10, 11, 500, 1000};
  gs::ForwardClock f = gs::forward_clock(t, kNone6, 0.99);
  EXPECT_EQ(f.corrected, t);
  EXPECT_EQ(f.internal, t);
}

TEST(ForwardClock, JumpIsAmortisedAtRateGamma) {
  // a bound moves the event at 10 to 30; afterwards the clock advances by ceil(0.5 * dt)
  // until the original clock has caught up (at 100)
  std::vector<int64_t> t = {0, 10, 20, 30, 40, 100};
  std::vector<int64_t> lower = kNone6;
  lower[1] = 30;
  gs::ForwardClock f = gs::forward_clock(t, lower, 0.5);
  EXPECT_EQ(f.corrected, (std::vector<int64_t>{0, 30, 35, 40, 45, 100}));
  EXPECT_EQ(f.internal, (std::vector<int64_t>{0, 10, 35, 40, 45, 100}));
}

TEST(ForwardClock, GammaOneKeepsTheSpacing) {
  std::vector<int64_t> t = {0, 10, 20, 30, 40, 100};
  std::vector<int64_t> lower = kNone6;
  lower[1] = 30;
  gs::ForwardClock f = gs::forward_clock(t, lower, 1.0);
  EXPECT_EQ(f.corrected, (std::vector<int64_t>{0, 30, 40, 50, 60, 120}));
}

TEST(ForwardClock, RandomBoundsKeepOrderAndHold) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> t;
    int64_t now = 0;
    for (int k = 0; k < 50; ++k) t.push_back(now += 1 + rng() % 1000);
    std::vector<int64_t> lower(t.size(), gs::kNoBound);
    for (size_t k = 0; k < t.size(); ++k)
      if (rng() % 4 == 0) lower[k] = t[k] + int64_t(rng() % 3000) - 1000;
    const double gamma = 0.9;
    gs::ForwardClock f = gs::forward_clock(t, lower, gamma);
    for (size_t k = 0; k < t.size(); ++k) {
      EXPECT_GE(f.corrected[k], t[k]);
      EXPECT_GE(f.corrected[k], lower[k]);
      if (k > 0) EXPECT_GE(f.corrected[k] - f.corrected[k - 1], int64_t(std::ceil(gamma * (t[k] - t[k - 1]))));
    }
  }
}

// c: forward-corrected times of a location whose event at 40 jumped by 20 to 60.
const std::vector<int64_t> kJumped = {0, 10, 20, 30, 60};

TEST(BackwardShift, StretchesTheIntervalsBeforeAJumpProportionally) {
  std::vector<int64_t> b = gs::backward_shift(kJumped, {{4, 20}}, {}, 0.01);
  // the ramp reaches back to the first event (20 / 0.01 is longer): shift = x / 2
  EXPECT_EQ(b, (std::vector<int64_t>{0, 5, 10, 15, 0}));
}

TEST(BackwardShift, SlopeLimitsHowFarBackTheRampReaches) {
  std::vector<int64_t> b = gs::backward_shift(kJumped, {{4, 20}}, {}, 1.0);
  EXPECT_EQ(b, (std::vector<int64_t>{0, 0, 0, 10, 0}));  // ramp from 20 (shift 0) to 40 (shift 20)
}

TEST(BackwardShift, SendWithoutSlackStopsTheRamp) {
  std::vector<int64_t> b = gs::backward_shift(kJumped, {{4, 20}}, {{2, 0}}, 0.01);
  EXPECT_EQ(b, (std::vector<int64_t>{0, 0, 0, 10, 0}));
}

TEST(BackwardShift, SendMovesByItsSlackAtMost) {
  // the straight ramp would move the send at 20 by 10; it may move by 6: the ramp bends there
  std::vector<int64_t> b = gs::backward_shift(kJumped, {{4, 20}}, {{2, 6}}, 0.01);
  EXPECT_EQ(b, (std::vector<int64_t>{0, 3, 6, 13, 0}));
  // a send with more slack than the ramp needs changes nothing
  EXPECT_EQ(gs::backward_shift(kJumped, {{4, 20}}, {{2, 50}}, 0.01), (std::vector<int64_t>{0, 5, 10, 15, 0}));
}

TEST(BackwardShift, OverlappingRampsTakeTheLargerShiftAndKeepOrder) {
  std::vector<int64_t> c = {0, 10, 40, 50, 90};  // jumps: at 40 (from 20) and at 90 (from 60)
  std::vector<int64_t> b = gs::backward_shift(c, {{2, 20}, {4, 30}}, {}, 0.01);
  // ramp 1 (0,0)-(20,20) over 10: 10; ramp 2 (0,0)-(60,30): 10 -> 5, 40 -> 20, 50 -> 25
  EXPECT_EQ(b, (std::vector<int64_t>{0, 10, 20, 25, 0}));
  for (size_t k = 1; k < c.size(); ++k) EXPECT_LE(c[k - 1] + b[k - 1], c[k] + b[k]);
}

TEST(BackwardShift, RandomLocationsStayOrderedAndPinsHold) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> t;
    int64_t now = 0;
    for (int k = 0; k < 40; ++k) t.push_back(now += 1 + rng() % 100);
    std::vector<int64_t> lower(t.size(), gs::kNoBound);
    std::vector<gs::Pin> pins;
    for (size_t k = 0; k < t.size(); ++k) {
      if (rng() % 5 == 0) lower[k] = t[k] + int64_t(rng() % 200);
      else if (rng() % 3 == 0) pins.push_back({k, int64_t(rng() % 30)});
    }
    gs::ForwardClock f = gs::forward_clock(t, lower, 0.99);
    std::vector<gs::Jump> jumps;
    for (size_t k = 0; k < t.size(); ++k)
      if (f.corrected[k] > f.internal[k]) jumps.push_back({k, f.corrected[k] - f.internal[k]});
    std::vector<int64_t> b = gs::backward_shift(f.corrected, jumps, pins, 0.05);
    for (size_t k = 0; k < t.size(); ++k) {
      EXPECT_GE(b[k], 0);
      if (k > 0) EXPECT_LE(f.corrected[k - 1] + b[k - 1], f.corrected[k] + b[k]);
    }
    for (auto& p : pins) EXPECT_LE(b[p.knot], p.slack);
  }
}

TEST(ClockMap, AnyTimestampIsMappedMonotonically) {
  gs::ClockMap m({10, 20, 40}, {10, 50, 60}, 0.5);
  EXPECT_EQ(m.at(5), 5);     // before the first known event: unchanged
  EXPECT_EQ(m.at(10), 10);
  EXPECT_EQ(m.at(15), 30);   // linear between known events
  EXPECT_EQ(m.at(20), 50);
  EXPECT_EQ(m.at(30), 55);
  EXPECT_EQ(m.at(40), 60);
  EXPECT_EQ(m.at(50), 65);   // after the last: forward amortisation (gamma 0.5) ...
  EXPECT_EQ(m.at(100), 100); // ... until the original clock is ahead again
  int64_t prev = INT64_MIN;
  for (int64_t t = 0; t < 200; ++t) {
    EXPECT_GE(m.at(t), prev);
    prev = m.at(t);
  }
}

// ---- whole correction on traces ----

struct Loaded {
  gs::Defs defs;
  gs::LocalData data;
};

Loaded load(const std::string& spec_path, const std::string& name) {
  std::string out = ::testing::TempDir() + "/gs_clc_" + name;
  std::string cmd = std::string("rm -rf ") + out + " && " GS_TRACEGEN " " + spec_path + " " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::string anchor = out + "/traces.otf2";
  gs::Archive archive(anchor);
  Loaded l;
  std::vector<uint32_t> all;
  for (uint32_t r = 0; r < archive.defs().ranks(); ++r) all.push_back(r);
  gs::read_locations(archive, all, l.data);
  l.defs = archive.defs();
  return l;
}

// The minimum latency the correction reports for the link between two ranks.
int64_t latency(const gs::Defs& d, const gs::ClcStats& st, uint32_t a, uint32_t b) {
  uint32_t ha = std::min(d.rank_metahost[a], d.rank_metahost[b]), hb = std::max(d.rank_metahost[a], d.rank_metahost[b]);
  gs::LinkClass c = ha != hb ? gs::LinkClass::Grid : d.rank_node[a] != d.rank_node[b] ? gs::LinkClass::Host
                                                                                      : gs::LinkClass::Node;
  for (const gs::LinkLatency& x : st.latencies)
    if (x.host_a == ha && x.host_b == hb && x.cls == c) return x.ticks;
  ADD_FAILURE() << "no latency reported for ranks " << a << ", " << b;
  return 0;
}

// Every clock condition of the records (matched messages and collective logical messages)
// with the latencies the correction used.
int violations(const Loaded& l, const gs::ClcStats& st) {
  auto latency = [&](uint32_t a, uint32_t b) { return ::latency(l.defs, st, a, b); };
  int bad = 0;
  std::vector<uint32_t> partner = gs::match(l.data.recvs, l.data.sends, nullptr);
  for (size_t i = 0; i < l.data.recvs.size(); ++i) {
    if (partner[i] == gs::kNone) continue;
    const gs::SendRec& s = l.data.sends[partner[i]];
    bad += l.data.recvs[i].evt < s.evt + latency(s.src, s.dst);
  }
  std::map<std::pair<uint32_t, uint32_t>, std::vector<const gs::CollRec*>> inst;
  for (auto& c : l.data.colls) inst[{c.comm, c.seq}].push_back(&c);
  for (auto& [key, m] : inst) {
    std::sort(m.begin(), m.end(), [](auto* a, auto* b) { return a->pos < b->pos; });
    for (auto* to : m)
      for (auto* from : m) {
        if (to == from) continue;
        bool edge = false;
        switch (gs::CollClass(to->cls)) {
          case gs::CollClass::Barrier:
          case gs::CollClass::NxN: edge = true; break;
          case gs::CollClass::OneToN: edge = from->rank == from->root; break;
          case gs::CollClass::NToOne: edge = to->rank == to->root; break;
          case gs::CollClass::Prefix: edge = from->pos < to->pos; break;
          default: break;
        }
        if (edge) bad += to->end < from->begin + latency(from->rank, to->rank);
      }
  }
  return bad;
}

std::string write_random_spec(unsigned seed, bool nxn) {
  // 6 ranks on 2 metahosts (3 nodes); every rank's clock is off by up to +-40 us. Each
  // iteration: a ring exchange (Send then Recv), then a Barrier, a Bcast from rank it%6 and
  // a Scan, or (nxn) an Allreduce, a Reduce to rank it%6 and an Allreduce.
  std::mt19937 rng(seed);
  const int R = 6;
  int off[R];
  for (int r = 0; r < R; ++r) off[r] = int(rng() % 81) - 40;
  std::string path = ::testing::TempDir() + "/gs_clc_random_" + std::to_string(seed) + (nxn ? "n" : "") + ".spec";
  std::ofstream f(path);
  const char* host[R] = {"A", "A", "A", "B", "B", "B"};
  const char* node[R] = {"a1", "a1", "a2", "b1", "b1", "b1"};
  for (int r = 0; r < R; ++r) f << "rank " << r << " " << host[r] << " " << node[r] << "\n";
  for (int r = 0; r < R; ++r) f << r << " 0 enter main\n";
  int64_t t0 = 100;
  for (int it = 0; it < 20; ++it, t0 += 400) {
    int64_t start[R];
    for (int r = 0; r < R; ++r) start[r] = t0 + off[r] + rng() % 20;
    for (int r = 0; r < R; ++r) {
      int64_t s = start[r];
      f << r << " " << s << " " << s + 2 << " send MPI_Send " << (r + 1) % R << " " << it << " 8\n";
      f << r << " " << s + 5 << " " << s + 60 << " recv MPI_Recv " << (r + R - 1) % R << " " << it << " 8\n";
      if (nxn) {
        f << r << " " << s + 80 << " " << s + 140 << " coll MPI_Allreduce MPI_COMM_WORLD -1 8 8\n";
        f << r << " " << s + 150 << " " << s + 200 << " coll MPI_Reduce MPI_COMM_WORLD " << it % R << " 8 "
          << (r == it % R ? 48 : 0) << "\n";
        f << r << " " << s + 210 << " " << s + 260 << " coll MPI_Allreduce MPI_COMM_WORLD -1 8 8\n";
        continue;
      }
      f << r << " " << s + 80 << " " << s + 140 << " coll MPI_Barrier MPI_COMM_WORLD -1 0 0\n";
      f << r << " " << s + 150 << " " << s + 200 << " coll MPI_Bcast MPI_COMM_WORLD " << it % R << " "
        << (r == it % R ? 8 : 0) << " " << (r == it % R ? 0 : 8) << "\n";
      f << r << " " << s + 210 << " " << s + 260 << " coll MPI_Scan MPI_COMM_WORLD -1 8 8\n";
    }
  }
  for (int r = 0; r < R; ++r) f << r << " " << t0 + 200 << " leave\n";
  return path;
}

TEST(CorrectClocks, RandomOffsetsLeaveNoViolationAndKeepOrder) {
  for (unsigned run = 0; run < 10; ++run) {
    unsigned seed = 1 + run / 2;
    Loaded l = load(write_random_spec(seed, run % 2), "random" + std::to_string(run));
    Loaded orig = l;
    auto t = gs::make_local_transport();
    gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, gs::ClcOptions{});
    EXPECT_GT(violations(orig, st), 0) << seed;
    EXPECT_TRUE(st.converged) << seed;
    EXPECT_EQ(violations(l, st), 0) << seed;
    // 2 metahosts, 3 nodes: A's two nodes (a1 with two ranks), B's one node (three ranks)
    EXPECT_EQ(st.latencies.size(), 4u) << seed;
    EXPECT_GT(st.corrected_receives + st.corrected_collectives, 0u);
    // each location's events keep their order, and no timestamp goes backwards
    for (size_t i = 0; i < l.data.sends.size(); ++i) {
      EXPECT_GE(l.data.sends[i].evt, orig.data.sends[i].evt);
      EXPECT_LE(l.data.sends[i].enter, l.data.sends[i].evt);
    }
    for (size_t i = 0; i < l.data.recvs.size(); ++i) {
      const auto &a = l.data.recvs[i], &o = orig.data.recvs[i];
      EXPECT_GE(a.evt, o.evt);
      EXPECT_LE(a.enter, a.evt);
      for (size_t j = 0; j < l.data.colls.size(); ++j) {
        const auto &c = l.data.colls[j], &oc = orig.data.colls[j];
        if (c.rank != a.dst) continue;
        // a receive before a collective stays before it, and the other way round
        if (o.evt <= oc.begin) EXPECT_LE(a.evt, c.begin);
        if (oc.end <= o.enter) EXPECT_LE(c.end, a.enter);
      }
    }
    for (size_t j = 0; j + 1 < l.data.colls.size(); ++j)
      if (l.data.colls[j].rank == l.data.colls[j + 1].rank) EXPECT_LE(l.data.colls[j].end, l.data.colls[j + 1].begin);
  }
}

TEST(CorrectClocks, ConsistentTraceIsLeftAlone) {
  Loaded l = load(GS_TEST_SPECS "/late_sender.spec", "late_sender");
  Loaded orig = l;
  auto t = gs::make_local_transport();
  // minimum latencies from the trace: every message takes at least its link's minimum
  gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, gs::ClcOptions{});
  for (const gs::LinkLatency& x : st.latencies) EXPECT_EQ(x.source, gs::LatencySource::Trace);
  EXPECT_EQ(st.rounds, 1u);
  EXPECT_EQ(st.corrected_receives, 0u);
  EXPECT_EQ(st.max_shift_ticks, 0);
  for (size_t i = 0; i < l.data.recvs.size(); ++i) EXPECT_EQ(l.data.recvs[i].evt, orig.data.recvs[i].evt);
}

TEST(CorrectClocks, BarrierMemberLeavingEarlyMovesToLatestBeginPlusLatency) {
  Loaded l = load(GS_TEST_SPECS "/clc_barrier.spec", "clc_barrier");
  auto t = gs::make_local_transport();
  gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, gs::ClcOptions{});
  EXPECT_EQ(st.corrected_collectives, 1u);
  EXPECT_EQ(violations(l, st), 0);
  // rank 0 (node a1) left at 30; rank 2 (node a2, same metahost) began at 40: no message
  // between A's nodes, so their latency is the floor (1 tick): 40 + 1 us. The one message
  // within node a1 took 10 us: that link's minimum.
  ASSERT_EQ(l.data.colls[0].rank, 0u);
  EXPECT_EQ(l.data.colls[0].end, 41);
  ASSERT_EQ(st.latencies.size(), 2u);
  EXPECT_EQ(st.latencies[0].cls, gs::LinkClass::Node);
  EXPECT_EQ(st.latencies[0].ticks, 10);
  EXPECT_EQ(st.latencies[0].source, gs::LatencySource::Trace);
  EXPECT_EQ(st.latencies[1].cls, gs::LinkClass::Host);
  EXPECT_EQ(st.latencies[1].ticks, 1);
  EXPECT_EQ(st.latencies[1].source, gs::LatencySource::Floor);
  EXPECT_EQ(st.latencies[1].observed_ticks, gs::kNoObservation);
}

}  // namespace

namespace {

TEST(CorrectClocks, BackwardAmortisationDoesNotMoveASendPastItsReceive) {
  Loaded l = load(GS_TEST_SPECS "/clc_pinned.spec", "clc_pinned");
  auto t = gs::make_local_transport();
  gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, gs::ClcOptions{});
  EXPECT_EQ(st.corrected_receives, 2u);
  EXPECT_EQ(violations(l, st), 0);
  std::optional<gs::SendRec> to2;
  for (size_t i = 0; i < l.data.sends.size(); ++i)
    if (l.data.sends[i].src == 1) to2 = l.data.sends[i];
  ASSERT_TRUE(to2.has_value());
  EXPECT_EQ(to2->evt, 10);      // pinned: its receive (moved to 12) allows no more
  EXPECT_EQ(to2->c_leave, 12);  // the ramp bends at the send
  std::optional<gs::RecvRec> from0;
  for (size_t i = 0; i < l.data.recvs.size(); ++i)
    if (l.data.recvs[i].dst == 1 && l.data.recvs[i].tag == 2) from0 = l.data.recvs[i];
  ASSERT_TRUE(from0.has_value());
  EXPECT_EQ(from0->enter, 36);
  EXPECT_EQ(from0->evt, 62);
}

}  // namespace

namespace {

TEST(CorrectClocks, CycleOfBoundsIsBrokenAndReported) {
  // Impossible trace: each rank receives the message the other sends only afterwards.
  std::string path = ::testing::TempDir() + "/gs_clc_cycle.spec";
  std::ofstream(path) << "rank 0 A a1\nrank 1 A a1\n0 0 enter main\n1 0 enter main\n"
                         "0 5 10 recv MPI_Recv 1 0 8\n1 5 10 recv MPI_Recv 0 0 8\n"
                         "0 20 21 send MPI_Send 1 0 8\n1 20 21 send MPI_Send 0 0 8\n0 50 leave\n1 50 leave\n";
  Loaded l = load(path, "cycle");
  auto t = gs::make_local_transport();
  gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, gs::ClcOptions{});
  EXPECT_FALSE(st.converged);
  EXPECT_EQ(st.corrected_receives, 0u);
  EXPECT_EQ(l.data.recvs[0].evt, 10);  // nothing moved: the bounds in the cycle were dropped
  EXPECT_EQ(l.data.sends[0].evt, 20);
}

}  // namespace

namespace {

TEST(CorrectClocks, BackwardAmortisationKeepsCollectiveBeginsThatFeedABound) {
  Loaded l = load(GS_TEST_SPECS "/clc_coll_pins.spec", "clc_coll_pins");
  auto t = gs::make_local_transport();
  gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, gs::ClcOptions{});
  EXPECT_EQ(st.corrected_collectives, 2u);
  EXPECT_EQ(st.corrected_receives, 2u);
  EXPECT_EQ(violations(l, st), 0);
  for (auto& c : l.data.colls) {
    if (c.rank == 1 || c.rank == 2) {  // the Reduce sender and the Bcast root: pinned
      EXPECT_EQ(c.begin, 10) << c.rank;
      EXPECT_EQ(c.end, 15) << c.rank;
    } else {
      EXPECT_EQ(c.end, 12) << c.rank;  // moved to the begin it waits for + 2 us (learned)
    }
  }
}

}  // namespace

namespace {

// ---- minimum latencies from the trace ----

TEST(MinTransfer, KeepsTheLeastPositiveTransfer) {
  gs::MinTransfer m;
  EXPECT_EQ(m.value, gs::kNoObservation);
  for (int64_t d : {-1000, 0, 3700, 3500, 5000}) m.add(d);
  EXPECT_EQ(m.value, 3500);  // violations (<= 0) do not drag it down
  gs::MinTransfer only_violations;
  for (int64_t d : {-5, 0}) only_violations.add(d);
  EXPECT_EQ(only_violations.value, gs::kNoObservation);
}

TEST(FloorTicks, RoundsDownAndIsAtLeastOneTick) {
  EXPECT_EQ(gs::floor_ticks(500, 1000000000), 500);  // ns ticks
  EXPECT_EQ(gs::floor_ticks(100, 1000000000), 100);
  EXPECT_EQ(gs::floor_ticks(500, 2400000000), 1200);
  EXPECT_EQ(gs::floor_ticks(500, 3000000), 1);      // 1.5 ticks -> 1
  EXPECT_EQ(gs::floor_ticks(500, 1000000), 1);      // 0.5 ticks -> at least 1
  EXPECT_EQ(gs::floor_ticks(100, 1000000), 1);
}

TEST(ChooseLatency, ObservedMinimumAboveTheFloor) {
  gs::LatencyChoice c = gs::choose_latency(3500, 500, -1);
  EXPECT_EQ(c.ticks, 3500);
  EXPECT_EQ(c.source, gs::LatencySource::Trace);
  c = gs::choose_latency(500, 500, -1);  // at the floor: still the trace's
  EXPECT_EQ(c.ticks, 500);
  EXPECT_EQ(c.source, gs::LatencySource::Trace);
}

TEST(ChooseLatency, FloorBelowItOrWithoutMessages) {
  gs::LatencyChoice c = gs::choose_latency(200, 500, -1);  // faster than physics: the floor
  EXPECT_EQ(c.ticks, 500);
  EXPECT_EQ(c.source, gs::LatencySource::Floor);
  c = gs::choose_latency(gs::kNoObservation, 500, -1);
  EXPECT_EQ(c.ticks, 500);
  EXPECT_EQ(c.source, gs::LatencySource::Floor);
}

TEST(ChooseLatency, AnExplicitOptionIsForced) {
  for (int64_t observed : {int64_t(200), int64_t(3500), gs::kNoObservation}) {
    gs::LatencyChoice c = gs::choose_latency(observed, 500, 30000);
    EXPECT_EQ(c.ticks, 30000);
    EXPECT_EQ(c.source, gs::LatencySource::Option);
  }
  gs::LatencyChoice zero = gs::choose_latency(3500, 500, 0);  // 0 is a value too
  EXPECT_EQ(zero.ticks, 0);
  EXPECT_EQ(zero.source, gs::LatencySource::Option);
}

TEST(CorrectClocks, EachMetahostPairHasItsOwnLatencyInACollective) {
  // Three metahosts, one rank each (1 tick = 1 us). A-B messages take 4 and 6 us (A-B: 4),
  // the A-C message 50 us (A-C: 50), none between B and C (the 1-tick floor). A barrier,
  // all begin at 100: rank 0's end >= max(100 + 4, 100 + 50) = 150 (was 120), rank 1's
  // >= max(104, 101) (120 stays), rank 2's >= max(150, 101) = 150 (was 130).
  std::string path = ::testing::TempDir() + "/gs_clc_pairs.spec";
  std::ofstream(path) << "rank 0 A a1\nrank 1 B b1\nrank 2 C c1\n0 0 enter main\n1 0 enter main\n2 0 enter main\n"
                         "0 10 11 send MPI_Send 1 0 8\n1 5 14 recv MPI_Recv 0 0 8\n"
                         "1 20 21 send MPI_Send 0 1 8\n0 15 26 recv MPI_Recv 1 1 8\n"
                         "0 30 31 send MPI_Send 2 2 8\n2 20 80 recv MPI_Recv 0 2 8\n"
                         "0 100 120 coll MPI_Barrier MPI_COMM_WORLD -1 0 0\n"
                         "1 100 120 coll MPI_Barrier MPI_COMM_WORLD -1 0 0\n"
                         "2 100 130 coll MPI_Barrier MPI_COMM_WORLD -1 0 0\n"
                         "0 200 leave\n1 200 leave\n2 200 leave\n";
  Loaded l = load(path, "pairs");
  auto t = gs::make_local_transport();
  gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, gs::ClcOptions{});
  ASSERT_EQ(st.latencies.size(), 3u);  // A-B, A-C, B-C (one rank per node: no node/host keys)
  EXPECT_EQ(latency(l.defs, st, 0, 1), 4);
  EXPECT_EQ(latency(l.defs, st, 0, 2), 50);
  EXPECT_EQ(latency(l.defs, st, 1, 2), 1);
  EXPECT_EQ(st.latencies[2].source, gs::LatencySource::Floor);
  EXPECT_EQ(st.corrected_receives, 0u);
  EXPECT_EQ(st.corrected_collectives, 2u);
  int64_t end[3] = {0, 0, 0};
  for (auto& c : l.data.colls) end[c.rank] = c.end;
  EXPECT_EQ(end[0], 150);
  EXPECT_EQ(end[1], 120);
  EXPECT_EQ(end[2], 150);
  EXPECT_EQ(violations(l, st), 0);
}

TEST(CorrectClocks, ExplicitLatencyOverridesTheTrace) {
  Loaded l = load(GS_TEST_SPECS "/clc_grid.spec", "clc_grid");
  auto t = gs::make_local_transport();
  gs::ClcOptions o;
  o.latency_grid_s = 10e-6;
  gs::ClcStats st = gs::correct_clocks(l.defs, l.data, *t, o);
  ASSERT_EQ(st.latencies.size(), 1u);
  EXPECT_EQ(st.latencies[0].ticks, 10);
  EXPECT_EQ(st.latencies[0].source, gs::LatencySource::Option);
  EXPECT_EQ(st.latencies[0].observed_ticks, 45);  // the second message: 405 - 360
  ASSERT_EQ(l.data.recvs[0].tag, 0u);
  EXPECT_EQ(l.data.recvs[0].evt, 30);  // 20 + 10 (specs/clc_grid.spec)
}

}  // namespace

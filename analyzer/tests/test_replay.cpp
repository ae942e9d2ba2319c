// Replay on a tiny synthetic trace written by gs-tracegen, through the in-process transport.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/error.hpp"
#include "gridscope/trace/reader.hpp"
#include "gridscope/trace/writer.hpp"
#include "replay.hpp"

namespace {

std::string make_trace(const std::string& spec) {
  std::string out = ::testing::TempDir() + "/gs_replay_" + spec;
  std::string cmd = std::string("rm -rf ") + out + " && " GS_TRACEGEN " " GS_TEST_SPECS "/" + spec + ".spec " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return out + "/traces.otf2";
}

double severity(const gs::ReplayResult& r, gs::MetricId m, uint8_t cls) {
  double sum = 0;
  for (auto& [k, v] : r.severities)
    if (k.metric == m && k.cls == cls) sum += v;
  return sum;
}

}  // namespace

TEST(Replay, LateSenderAcrossMetahosts) {
  std::string anchor = make_trace("late_sender");
  gs::Archive archive(anchor);
  const gs::Defs& defs = archive.defs();
  ASSERT_EQ(defs.ranks(), 4u);
  EXPECT_EQ(defs.metahosts, (std::vector<std::string>{"jsc", "brs"}));
  gs::LocalData data;
  gs::read_locations(archive, {0, 1, 2, 3}, data);
  auto t = gs::make_local_transport();
  gs::WaitWriter waits;  // no path: rows are kept in memory
  gs::ReplayResult r = gs::replay(defs, data, *t, waits, gs::Rules::Scalasca);
  waits.close();
  EXPECT_EQ(waits.count(), 3u);
  ASSERT_EQ(waits.kept.size(), 3u);
  // tests/analyzer/specs/late_sender.spec: rank 0 waits 30 us for rank 2 (other metahost);
  // rank 1 waits 10 us for rank 0 and rank 3 20 us for rank 2 (same metahost each).
  EXPECT_DOUBLE_EQ(severity(r, gs::M_LATE_SENDER, gs::CLS_GRID), 30e-6);
  EXPECT_NEAR(severity(r, gs::M_LATE_SENDER, gs::CLS_LOCAL), 30e-6, 1e-18);
  EXPECT_EQ(r.counters.unmatched_sends + r.counters.unmatched_receives, 0u);
}

// A Late Receiver of 5 s at 1 GHz: the Isend's MPI_Wait is entered 1 s after the Isend and
// waits until 5 s after that, when the receive is posted; every interval is more than 2^32
// ticks, so the message records keep their times on the side (messages.hpp), exactly.
TEST(Replay, LateReceiverAcrossHugeGapsIsExact) {
  std::string dir = ::testing::TempDir() + "/gs_replay_huge_gap";
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
  gs::WriterOptions opt;
  opt.resolution = 1000000000;
  opt.fixed_global_offset = true;
  gs::TraceWriter w(dir, opt);
  w.add_rank("siteA", "a0");
  w.add_rank("siteB", "b0");
  const uint32_t main = w.region("main"), isend = w.region("MPI_Isend"), wait = w.region("MPI_Wait"),
                 recv = w.region("MPI_Recv");
  const uint64_t s = 1000000000;
  w.enter(0, 0, main);
  w.enter(0, 1 * s, isend); w.isend(0, 1 * s + 1, 1, gs::kWorldComm, 3, 16, 1); w.leave(0, 1 * s + 2, isend);
  w.enter(0, 2 * s, wait); w.isend_complete(0, 9 * s, 1); w.leave(0, 9 * s + 1, wait);
  w.leave(0, 20 * s, main);
  w.enter(1, 0, main);
  w.enter(1, 7 * s, recv); w.recv(1, 8 * s, 0, gs::kWorldComm, 3, 16); w.leave(1, 8 * s + 1, recv);
  w.leave(1, 20 * s, main);
  w.finish();

  gs::Archive archive(dir + "/traces.otf2");
  gs::LocalData data;
  gs::read_locations(archive, {0, 1}, data);
  auto t = gs::make_local_transport();
  gs::WaitWriter waits;
  gs::ReplayResult r = gs::replay(archive.defs(), data, *t, waits, gs::Rules::Scalasca);
  waits.close();
  EXPECT_EQ(r.counters.messages, 1u);
  EXPECT_EQ(severity(r, gs::M_LATE_RECEIVER, gs::CLS_GRID), 5.0);  // 7 s - 2 s
  EXPECT_EQ(severity(r, gs::M_LATE_SENDER, gs::CLS_GRID), 0.0);
  ASSERT_EQ(waits.kept.size(), 1u);
  EXPECT_EQ(waits.kept[0].start, 2.0);
  EXPECT_EQ(waits.kept[0].end, 7.0);
}

TEST(CallTree, ManyNodesKeepParentLinks) {
  // Regression: growing the node vector while linking a child must not write through a
  // stale pointer (duplicate call paths appeared once the tree reallocated).
  gs::CallTree tree;
  uint32_t root = tree.child(gs::kNone, 0);
  std::vector<uint32_t> ids;
  for (uint32_t r = 1; r < 200; ++r) ids.push_back(tree.child(root, r));
  for (uint32_t r = 1; r < 200; ++r) EXPECT_EQ(tree.child(root, r), ids[r - 1]);
  EXPECT_EQ(tree.nodes.size(), 200u);
}

// The processes own consecutive blocks of ranks, as even as they divide (the driver's wait
// rows rely on that order), and RankOwners answers as owner_of does.
TEST(RankOwners, ConsecutiveEvenBlocks) {
  for (uint32_t ranks : {1u, 5u, 16u, 64u, 1000u})
    for (int processes : {1, 2, 3, 7, 16}) {
      if (uint32_t(processes) > ranks) continue;
      const gs::RankOwners owner(ranks, processes);
      std::vector<uint32_t> count(processes, 0);
      for (uint32_t r = 0; r < ranks; ++r) {
        ASSERT_EQ(owner(r), gs::owner_of(r, ranks, processes)) << ranks << " ranks, rank " << r;
        ASSERT_LT(owner(r), uint32_t(processes));
        if (r > 0) ASSERT_LE(owner(r - 1), owner(r));
        ++count[owner(r)];
      }
      const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
      EXPECT_LE(*hi - *lo, 1u) << ranks << " ranks on " << processes << " processes";
      EXPECT_GT(*lo, 0u);
    }
}

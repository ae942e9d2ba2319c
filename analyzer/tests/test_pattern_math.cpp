// Unit tests of the wait-state formulas (pattern_math.hpp) on hand-computed values.
#include <gtest/gtest.h>

#include "pattern_math.hpp"

using gs::CollMember;

TEST(LateSender, PositiveOnlyAndCapped) {
  EXPECT_EQ(gs::late_sender(30, 10, 100), 20);
  EXPECT_EQ(gs::late_sender(5, 10, 100), 0);
  EXPECT_EQ(gs::late_sender(500, 10, 100), 90);  // capped by the time in the receive
}

TEST(LateReceiver, OnlyWhenTheSendOutlastsTheRequest) {
  EXPECT_EQ(gs::late_receiver(40, 10, 60), 30);
  EXPECT_EQ(gs::late_receiver(40, 10, 30), 0);  // eager send finished before the receive was posted
  EXPECT_EQ(gs::late_receiver(5, 10, 60), 0);
}

TEST(Collectives, BarrierAndCompletion) {
  std::vector<CollMember> m = {{0, 50, 0, 0, false}, {20, 55, 0, 0, false}, {40, 60, 0, 0, false}};
  EXPECT_EQ(gs::wait_at_barrier(m), (std::vector<int64_t>{40, 20, 0}));
  EXPECT_EQ(gs::completion(m), (std::vector<int64_t>{0, 5, 10}));
}

TEST(Collectives, NxNOverlapAndNonOverlap) {
  std::vector<CollMember> overlap = {{0, 50, 8, 8, false}, {30, 52, 8, 8, false}};
  EXPECT_EQ(gs::wait_at_nxn(overlap), (std::vector<int64_t>{30, 0}));
  // rank 0 left before rank 1 began (clock problem or no real synchronisation): only
  // receivers wait for the latest sender.
  std::vector<CollMember> apart = {{0, 10, 0, 8, false}, {30, 40, 8, 0, false}};
  EXPECT_EQ(gs::wait_at_nxn(apart), (std::vector<int64_t>{10, 0}));
}

TEST(Collectives, BroadcastReduceScan) {
  std::vector<CollMember> bc = {{30, 40, 16, 0, true}, {10, 45, 0, 8, false}, {35, 50, 0, 8, false}};
  EXPECT_EQ(gs::late_broadcast(bc), (std::vector<int64_t>{0, 20, 0}));
  std::vector<CollMember> red = {{0, 40, 8, 24, true}, {10, 20, 8, 0, false}, {25, 30, 8, 0, false}};
  EXPECT_EQ(gs::early_reduce(red), (std::vector<int64_t>{25, 0, 0}));
  std::vector<CollMember> scan = {{10, 50, 8, 8, false}, {0, 50, 8, 8, false}, {30, 50, 8, 8, false}, {20, 50, 8, 8, false}};
  EXPECT_EQ(gs::early_scan(scan), (std::vector<int64_t>{0, 10, 0, 10}));
}

// Non-blocking collectives: {join, enter, leave, sent, received, is_root}; waits are
// measured from the completing call's enter, never from the join.
using gs::NbcMember;

TEST(NonBlockingCollectives, EveryoneWaitsForTheLatestJoinInsideTheCompletingCall) {
  // joins 10, 12, 40; completing calls entered 20, 15, 41
  std::vector<NbcMember> m = {{10, 20, 45, 8, 8, false}, {12, 15, 45, 8, 8, false}, {40, 41, 45, 8, 8, false}};
  EXPECT_EQ(gs::wait_at_barrier(m), (std::vector<int64_t>{20, 25, 0}));
  // a completing call that ends before the latest join (skewed clocks): capped by its duration
  m[0].leave = 30;
  EXPECT_EQ(gs::wait_at_barrier(m), (std::vector<int64_t>{10, 25, 0}));
  // the time between the join and the completing call is the program's, not waiting
  std::vector<NbcMember> overlap = {{0, 100, 101, 8, 8, false}, {50, 51, 101, 8, 8, false}};
  EXPECT_EQ(gs::wait_at_barrier(overlap), (std::vector<int64_t>{0, 0}));
}

TEST(NonBlockingCollectives, BroadcastReduceScan) {
  std::vector<NbcMember> bc = {{30, 31, 32, 16, 0, true}, {10, 12, 40, 0, 8, false}, {35, 36, 40, 0, 8, false},
                               {5, 6, 40, 0, 0, false}};  // the last receives nothing: no wait
  EXPECT_EQ(gs::late_broadcast(bc), (std::vector<int64_t>{0, 18, 0, 0}));
  std::vector<NbcMember> red = {{60, 61, 100, 8, 24, true}, {70, 71, 100, 8, 0, false}, {90, 91, 100, 0, 0, false}};
  EXPECT_EQ(gs::early_reduce(red), (std::vector<int64_t>{9, 0, 0}));  // rank 2 sends nothing
  std::vector<NbcMember> scan = {{110, 111, 150, 8, 8, false}, {100, 101, 150, 8, 8, false},
                                 {130, 131, 150, 8, 8, false}, {120, 121, 150, 8, 8, false}};
  EXPECT_EQ(gs::early_scan(scan), (std::vector<int64_t>{0, 9, 0, 9}));
}

TEST(NonBlockingCollectives, CompletionIsOwnLeaveMinusTheEarliestLeave) {
  // completing calls 20..22, 20..22, 20..35: the last returns 13 after the first
  std::vector<NbcMember> m = {{10, 20, 22, 8, 8, false}, {11, 20, 22, 8, 8, false}, {12, 20, 35, 8, 8, false}};
  EXPECT_EQ(gs::completion(m), (std::vector<int64_t>{0, 0, 13}));
  // capped by the call's duration: entered after the first member had left
  m[2].enter = 30;
  EXPECT_EQ(gs::completion(m), (std::vector<int64_t>{0, 0, 5}));
}

// The member root-cause analysis charges an instance's waits to (docs/root-causes.md).
TEST(Delayer, LatestJoinerFirstOfEqual) {
  std::vector<CollMember> m = {{10, 50, 8, 8, false}, {30, 50, 8, 8, false}, {30, 50, 8, 8, false}};
  EXPECT_EQ(gs::latest_joiner(m), 1);
  EXPECT_EQ(gs::latest_joiner(std::vector<CollMember>{}), -1);
}

TEST(Delayer, NxNOverlapTakesTheLatestElseTheLatestSender) {
  std::vector<CollMember> overlap = {{10, 50, 8, 8, false}, {30, 50, 8, 8, false}};
  EXPECT_EQ(gs::nxn_delayer(overlap), 1);
  // rank 1 ends before rank 2 begins (no overlap); rank 2 sends nothing: the latest sender is rank 1
  std::vector<CollMember> apart = {{10, 20, 8, 8, false}, {12, 15, 8, 0, false}, {40, 50, 0, 8, false}};
  EXPECT_EQ(gs::nxn_delayer(apart), 1);
}

TEST(Delayer, RootAndLatestSendingLeaf) {
  std::vector<CollMember> m = {{10, 50, 0, 24, true}, {30, 50, 8, 0, false}, {40, 50, 0, 0, false},
                               {20, 50, 8, 0, false}};
  EXPECT_EQ(gs::root_member(m), 0);
  EXPECT_EQ(gs::latest_sending_leaf(m), 1);  // rank 2 is later but sends nothing
  m[0].is_root = false;
  EXPECT_EQ(gs::root_member(m), -1);
}

// CollSummary (a blocking instance seen through what its members have in common, what the
// replay without root causes exchanges) gives each member what the formulas over all
// members give: random instances of 1-9 members, some sending, some receiving, some roots.
TEST(CollSummary, EachMemberAsTheWholeInstanceGivesIt) {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&](int64_t n) { state = state * 6364136223846793005ull + 1442695040888963407ull; return int64_t((state >> 33) % uint64_t(n)); };
  for (int round = 0; round < 2000; ++round) {
    std::vector<CollMember> m(size_t(1 + next(9)));
    const size_t root = size_t(next(int64_t(m.size())));
    for (size_t k = 0; k < m.size(); ++k) {
      const int64_t begin = next(100);
      m[k] = {begin, begin + next(60), uint64_t(next(3) ? 8 : 0), uint64_t(next(3) ? 8 : 0), k == root};
    }
    gs::CollSummary s;
    for (const CollMember& x : m) {
      s.latest = std::max(s.latest, x.begin);
      s.earliest_end = std::min(s.earliest_end, x.end);
      if (x.sent > 0) s.sender = std::max(s.sender, x.begin);
      if (x.sent > 0 && !x.is_root) s.leaf = std::max(s.leaf, x.begin);
      if (x.is_root) s.root = x.begin;
    }
    const auto barrier = gs::wait_at_barrier(m), done = gs::completion(m), nxn = gs::wait_at_nxn(m),
               bcast = gs::late_broadcast(m), reduce = gs::early_reduce(m), init = gs::completion_after_latest_begin(m);
    for (size_t k = 0; k < m.size(); ++k) {
      SCOPED_TRACE("round " + std::to_string(round) + ", member " + std::to_string(k));
      EXPECT_EQ(s.wait_at_barrier(m[k]), barrier[k]);
      EXPECT_EQ(s.completion(m[k]), done[k]);
      EXPECT_EQ(s.wait_at_nxn(m[k]), nxn[k]);
      EXPECT_EQ(s.late_broadcast(m[k]), bcast[k]);
      EXPECT_EQ(s.early_reduce(m[k]), reduce[k]);
      EXPECT_EQ(s.completion_after_latest_begin(m[k]), init[k]);
    }
  }
}

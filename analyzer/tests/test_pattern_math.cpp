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

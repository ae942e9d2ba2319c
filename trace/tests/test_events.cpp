// Region balancing and repair of user regions (events.hpp), on hand-made definitions.
#include <gtest/gtest.h>

#include "gridscope/trace/events.hpp"

namespace {

enum : uint32_t { kMain, kLoop, kInner, kSend };

gs::Defs defs() {
  gs::Defs d;
  d.resolution = 1000000;  // 1 tick = 1 us
  for (const char* name : {"main", "loop", "inner", "MPI_Send"}) {
    gs::RegionDef r;
    r.name = name;
    r.defined = true;
    r.is_mpi = r.name.rfind("MPI_", 0) == 0;
    d.regions.push_back(r);
  }
  return d;
}

struct Balance : ::testing::Test {
  gs::Defs d = defs();
  gs::RepairLog log;
  gs::RegionBalance b{d, 7, 3, log};
  void enter(std::initializer_list<uint32_t> regions) {
    for (uint32_t r : regions) b.enter(r);
  }
};

TEST_F(Balance, MatchingLeaveClosesOne) {
  enter({kMain, kLoop});
  EXPECT_EQ(b.leave(kLoop, 10), 1u);
  EXPECT_EQ(log.total(), 0u);
}

TEST_F(Balance, LeaveOfOuterUserRegionClosesTheInnerOnes) {
  enter({kMain, kLoop, kInner});
  EXPECT_EQ(b.leave(kMain, 40), 3u);  // inner, loop, then main itself
  EXPECT_EQ(log.count[int(gs::Repair::Misnested)], 2u);
  EXPECT_EQ(log.first[int(gs::Repair::Misnested)].region, uint32_t(kInner));  // innermost first
  EXPECT_EQ(log.first[int(gs::Repair::Misnested)].time, 40u);
  EXPECT_EQ(log.first[int(gs::Repair::Misnested)].rank, 3u);
  EXPECT_TRUE(b.error().empty());
}

TEST_F(Balance, MpiRegionClosesUserRegionsLeftOpenInside) {
  enter({kMain, kSend, kInner});
  EXPECT_EQ(b.leave(kSend, 5), 2u);
  EXPECT_EQ(log.count[int(gs::Repair::Misnested)], 1u);
}

TEST_F(Balance, StrayUserLeaveIsDropped) {
  enter({kMain});
  EXPECT_EQ(b.leave(kInner, 50), 0u);
  EXPECT_TRUE(b.error().empty());
  EXPECT_EQ(log.count[int(gs::Repair::StrayLeave)], 1u);
}

TEST_F(Balance, OpenMpiRegionInsideALeftRegionIsAnError) {
  enter({kMain, kLoop, kSend});
  EXPECT_EQ(b.leave(kLoop, 30), 0u);
  EXPECT_EQ(b.error(), "Leave of region 'loop' on rank 3 at 0.000030 s while MPI region 'MPI_Send' inside it "
                       "is still open (mis-nested MPI region)");
}

TEST_F(Balance, LeaveOfMpiRegionThatIsNotOpenIsAnError) {
  EXPECT_EQ(b.leave(kSend, 2), 0u);
  EXPECT_EQ(b.error(), "Leave of MPI region 'MPI_Send' on rank 3 at 0.000002 s without an Enter (corrupt event stream)");
}

TEST_F(Balance, UserRegionsOpenAtTheEndAreClosed) {
  enter({kMain, kLoop});
  EXPECT_EQ(b.finish(99), 2u);
  EXPECT_EQ(log.count[int(gs::Repair::Unclosed)], 2u);
  EXPECT_EQ(log.first[int(gs::Repair::Unclosed)].region, uint32_t(kLoop));
}

TEST_F(Balance, StreamEndingInsideMpiWasCutShort) {
  // a rank killed outright: everything open is closed at the last event, counted once
  enter({kMain, kLoop, kSend});
  EXPECT_EQ(b.finish(99), 3u);
  EXPECT_TRUE(b.error().empty());
  EXPECT_EQ(log.count[int(gs::Repair::Truncated)], 1u);
  EXPECT_EQ(log.first[int(gs::Repair::Truncated)].region, uint32_t(kSend));
  EXPECT_EQ(log.count[int(gs::Repair::Unclosed)], 2u);  // main and loop: user regions
}

TEST_F(Balance, UndefinedRegion) {
  EXPECT_FALSE(b.undefined(kSend));
  EXPECT_TRUE(b.undefined(17));
  EXPECT_EQ(b.error(), "Enter of undefined region 17 (corrupt event stream)");
}

TEST(RepairLog, MergeKeepsTheLowerRanksExampleAndSums) {
  gs::RepairLog a, b;
  a.add(gs::Repair::Unclosed, {kLoop, 5, 50, 100});
  b.add(gs::Repair::Unclosed, {kInner, 2, 20, 900});
  b.add(gs::Repair::Unclosed, {kMain, 2, 20, 901});
  a.merge(b);
  EXPECT_EQ(a.count[int(gs::Repair::Unclosed)], 3u);
  EXPECT_EQ(a.first[int(gs::Repair::Unclosed)].rank, 2u);
  EXPECT_EQ(a.first[int(gs::Repair::Unclosed)].region, uint32_t(kInner));
}

TEST(RepairLog, WarningLines) {
  gs::Defs d = defs();
  gs::RepairLog log;
  log.add(gs::Repair::StrayLeave, {kInner, gs::kNoRank, 12, 3});
  EXPECT_EQ(gs::repair_warnings(log, d),
            std::vector<std::string>{"1 Leave of a user region that was not open, dropped (first: 'inner' on "
                                     "location 12 at 0.000003 s)"});
}

}  // namespace

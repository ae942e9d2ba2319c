// Communicator rank translation (Defs::world_rank) on hand-made definitions.
#include <gtest/gtest.h>

#include "gridscope/trace/defs.hpp"

namespace {

gs::Defs four_ranks() {
  gs::Defs d;
  d.rank_location = {10, 11, 12, 13};
  d.comms.resize(3);
  d.comms[0].defined = true;  // ranks 2 and 3, numbered 0 and 1 in events
  d.comms[0].members = {2, 3};
  d.comms[1].defined = d.comms[1].is_self = true;
  d.comms[2] = d.comms[0];  // same members, but events already name world ranks
  d.comms[2].global_ranks = true;
  return d;
}

TEST(WorldRank, TranslatesThroughTheGroup) {
  gs::Defs d = four_ranks();
  EXPECT_EQ(d.world_rank(0, 1, 2), 3u);
  EXPECT_EQ(d.world_rank(0, 2, 2), UINT32_MAX);  // out of the group
}

TEST(WorldRank, SelfIsTheCaller) {
  gs::Defs d = four_ranks();
  EXPECT_EQ(d.world_rank(1, 0, 3), 3u);
  EXPECT_EQ(d.world_rank(1, 1, 3), UINT32_MAX);
}

TEST(WorldRank, GlobalMembersNeedNoTranslation) {
  gs::Defs d = four_ranks();
  EXPECT_EQ(d.world_rank(2, 3, 2), 3u);
  EXPECT_EQ(d.world_rank(2, 4, 2), UINT32_MAX);  // beyond the world
}

TEST(WorldRank, UndefinedCommunicator) {
  gs::Defs d = four_ranks();
  EXPECT_EQ(d.world_rank(7, 0, 0), UINT32_MAX);
}

}  // namespace

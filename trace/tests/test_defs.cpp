// Communicator rank translation (Defs::world_rank) on hand-made definitions.
#include <gtest/gtest.h>

#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/mpi_names.hpp"

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

// The MPI facts come from the collector's declaration (collector/wrapgen/mpi_api.py).
TEST(MpiFacts, CollectiveClasses) {
  using gs::CollClass;
  EXPECT_EQ(gs::collective_class(std::string("MPI_Allreduce")), CollClass::NxN);
  EXPECT_EQ(gs::collective_class(std::string("MPI_Alltoallv")), CollClass::Skipped);
  // neighbourhood collectives have no wait-state definition, blocking or not
  EXPECT_EQ(gs::collective_class(std::string("MPI_Neighbor_allgather")), CollClass::Skipped);
  EXPECT_EQ(gs::nonblocking_collective_class("MPI_Ineighbor_alltoall"), CollClass::Skipped);
  // a non-blocking collective has its blocking form's class, but is no blocking collective
  EXPECT_EQ(gs::nonblocking_collective_class("MPI_Iallreduce"), CollClass::NxN);
  EXPECT_EQ(gs::collective_class(std::string("MPI_Iallreduce")), CollClass::None);
  EXPECT_EQ(gs::nonblocking_collective_class("MPI_Isend"), CollClass::None);
  EXPECT_EQ(gs::collective_class(std::string("MPI_Send")), CollClass::None);
}

TEST(MpiFacts, RolesOperationsAndLateReceiverSends) {
  EXPECT_EQ(gs::region_role("MPI_Probe"), OTF2_REGION_ROLE_POINT2POINT);
  EXPECT_EQ(gs::region_role("MPI_File_read"), OTF2_REGION_ROLE_FILE_IO);
  EXPECT_EQ(gs::region_role("MPI_Comm_rank"), OTF2_REGION_ROLE_UNKNOWN);
  EXPECT_EQ(gs::region_role("MPI_Not_a_function"), OTF2_REGION_ROLE_UNKNOWN);
  EXPECT_EQ(gs::region_role("compute"), OTF2_REGION_ROLE_FUNCTION);
  EXPECT_EQ(gs::collective_op("MPI_Scan"), OTF2_COLLECTIVE_OP_SCAN);
  EXPECT_TRUE(gs::late_receiver_send("MPI_Issend"));
  EXPECT_FALSE(gs::late_receiver_send("MPI_Bsend"));  // buffered: the sender never waits
}

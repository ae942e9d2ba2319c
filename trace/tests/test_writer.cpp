// TraceWriter (writer.hpp) round trip: a small hand-written trace read back with the
// library's reader (gs::Archive's definitions, read_locations); every expected value below is
// derived by hand from the calls in write_sample().
#include <gtest/gtest.h>
#include <otf2/otf2.h>
#include <stdlib.h>

#include <fstream>
#include <string>

#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/error.hpp"
#include "gridscope/trace/reader.hpp"
#include "gridscope/trace/writer.hpp"

namespace {

std::string temp_dir() {
  std::string tmpl = testing::TempDir() + "gs_writer_XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

// Three ranks: 0 and 1 on siteA/a0, 2 on siteB/b0 (1 tick = 1 us). Rank 2's clock has two
// ClockOffsets, (0, +100) and (1000, +300): libotf2 moves its event at local time t to
// t + 100 + t/5 (t is a multiple of 5 below, so the results are whole ticks).
enum Reg : uint32_t { kMain, kSend, kIsend, kRecv, kIrecv, kWait, kAllreduce };

struct Sample { std::string anchor; uint64_t events; uint32_t pair; };

Sample write_sample(const std::string& dir) {
  gs::WriterOptions opt;  // resolution 1e6, gridscope layout, global offset = earliest event
  gs::TraceWriter w(dir, opt);
  EXPECT_EQ(w.add_rank("siteA", "a0"), 0u);
  EXPECT_EQ(w.add_rank("siteA", "a0"), 1u);
  EXPECT_EQ(w.add_rank("siteB", "b0"), 2u);
  for (const char* n : {"main", "MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Wait", "MPI_Allreduce"})
    w.region(n);
  EXPECT_EQ(w.region("MPI_Wait"), kWait);  // a second use returns the same id
  uint32_t pair = w.add_comm("pair", {0, 2});
  EXPECT_EQ(w.comm("pair"), pair);
  w.clock_offset(2, 0, 100);
  w.clock_offset(2, 1000, 300);

  // rank 0: blocking send to rank 2 (comm rank 1 of "pair"), then the Allreduce
  w.enter(0, 10, kMain);
  w.enter(0, 20, kSend); w.send(0, 21, 1, pair, 5, 64); w.leave(0, 30, kSend);
  w.enter(0, 100, kAllreduce); w.collective_begin(0, 101);
  w.collective_end(0, 150, OTF2_COLLECTIVE_OP_ALLREDUCE, gs::kWorldComm, gs::kNoRoot, 24, 24);
  w.leave(0, 151, kAllreduce);
  w.leave(0, 200, kMain);
  // rank 1: Isend to rank 2, completed by MPI_Wait
  w.enter(1, 10, kMain);
  w.enter(1, 40, kIsend); w.isend(1, 41, 2, gs::kWorldComm, 6, 128, 9); w.leave(1, 42, kIsend);
  w.enter(1, 50, kWait); w.isend_complete(1, 55, 9); w.leave(1, 56, kWait);
  w.enter(1, 90, kAllreduce); w.collective_begin(1, 91);
  w.collective_end(1, 159, OTF2_COLLECTIVE_OP_ALLREDUCE, gs::kWorldComm, gs::kNoRoot, 24, 24);
  w.leave(1, 160, kAllreduce);
  w.leave(1, 200, kMain);
  // rank 2: blocking receive from rank 0 on "pair", Irecv + Wait from rank 1
  w.enter(2, 10, kMain);
  w.enter(2, 25, kRecv); w.recv(2, 35, 0, pair, 5, 64); w.leave(2, 40, kRecv);
  w.enter(2, 45, kIrecv); w.irecv_request(2, 50, 3); w.leave(2, 55, kIrecv);
  w.enter(2, 60, kWait); w.irecv(2, 70, 1, gs::kWorldComm, 6, 128, 3); w.leave(2, 75, kWait);
  w.enter(2, 80, kAllreduce); w.collective_begin(2, 85);
  w.collective_end(2, 140, OTF2_COLLECTIVE_OP_ALLREDUCE, gs::kWorldComm, gs::kNoRoot, 24, 24);
  w.leave(2, 145, kAllreduce);
  w.leave(2, 500, kMain);
  return {dir + "/traces.otf2", w.finish(), pair};
}

int64_t rank2(int64_t local) { return local + 100 + local / 5 - 10; }  // corrected, minus global offset 10

TEST(TraceWriter, DefinitionsReadBack) {
  Sample s = write_sample(temp_dir());
  EXPECT_EQ(s.events, 9u + 12u + 15u);
  gs::Archive archive(s.anchor);
  const gs::Defs& d = archive.defs();
  EXPECT_EQ(d.resolution, 1000000u);
  EXPECT_EQ(d.global_offset, 10u);   // earliest event
  EXPECT_EQ(d.trace_length, 490u);   // latest (500, raw) - earliest
  ASSERT_EQ(d.regions.size(), 7u);
  EXPECT_EQ(d.regions[kMain].name, "main");
  EXPECT_FALSE(d.regions[kMain].is_mpi);
  EXPECT_TRUE(d.regions[kRecv].is_mpi);
  EXPECT_EQ(d.regions[kAllreduce].name, "MPI_Allreduce");
  EXPECT_EQ(d.regions[kAllreduce].coll, gs::CollClass::NxN);
  EXPECT_TRUE(d.regions[kSend].lr_send);
  ASSERT_EQ(d.ranks(), 3u);
  EXPECT_EQ(d.rank_events, (std::vector<uint64_t>{9, 12, 15}));
  EXPECT_EQ(d.rank_metahost_name, (std::vector<std::string>{"siteA", "siteA", "siteB"}));
  EXPECT_EQ(d.rank_node, (std::vector<std::string>{"a0", "a0", "b0"}));
  EXPECT_EQ(d.metahosts.size(), 2u);
  EXPECT_NE(d.rank_metahost[0], d.rank_metahost[2]);
  EXPECT_EQ(d.rank_metahost[0], d.rank_metahost[1]);
  ASSERT_EQ(d.comms.size(), 3u);
  EXPECT_EQ(d.comms[gs::kWorldComm].members, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_TRUE(d.comms[gs::kSelfComm].is_self);
  EXPECT_EQ(d.comms[s.pair].members, (std::vector<uint32_t>{0, 2}));
  EXPECT_TRUE(d.comms[s.pair].grid);
  EXPECT_EQ(d.world_rank(s.pair, 1, 0), 2u);
}

TEST(TraceWriter, RecordsReadBackWithClockOffsets) {
  Sample s = write_sample(temp_dir());
  gs::Archive archive(s.anchor);
  gs::LocalData data;
  gs::read_locations(archive, {0, 1, 2}, data);
  EXPECT_EQ(data.events, 36u);
  EXPECT_EQ(data.clock_offsets_applied, 1u);  // rank 2 only

  ASSERT_EQ(data.sends.size(), 2u);
  const gs::SendRec& a = data.sends[0];  // rank 0's MPI_Send
  EXPECT_EQ(std::make_tuple(a.src, a.dst, a.comm, a.tag), std::make_tuple(0u, 2u, s.pair, 5u));
  EXPECT_EQ(std::make_tuple(a.enter, a.evt, a.c_enter, a.c_leave), std::make_tuple(10, 11, 10, 20));
  EXPECT_EQ(a.complete, 1);
  const gs::SendRec& b = data.sends[1];  // rank 1's Isend, completed in MPI_Wait
  EXPECT_EQ(std::make_tuple(b.src, b.dst, b.comm, b.tag), std::make_tuple(1u, 2u, gs::kWorldComm, 6u));
  EXPECT_EQ(std::make_tuple(b.enter, b.evt, b.c_enter, b.c_leave), std::make_tuple(30, 31, 40, 46));
  EXPECT_EQ(b.complete, 1);

  ASSERT_EQ(data.recvs.size(), 2u);
  const gs::RecvRec& r = data.recvs[0];  // blocking receive, rank 2's clock corrected
  EXPECT_EQ(std::make_tuple(r.src, r.dst, r.comm, r.tag, r.bytes), std::make_tuple(0u, 2u, s.pair, 5u, uint64_t(64)));
  EXPECT_EQ(std::make_tuple(r.enter, r.evt, r.leave), std::make_tuple(rank2(25), rank2(35), rank2(40)));
  const gs::RecvRec& q = data.recvs[1];  // Irecv completed in MPI_Wait
  EXPECT_EQ(std::make_tuple(q.src, q.dst, q.comm, q.tag, q.bytes), std::make_tuple(1u, 2u, 0u, 6u, uint64_t(128)));
  EXPECT_EQ(std::make_tuple(q.req_enter, q.enter, q.evt, q.leave),
            std::make_tuple(rank2(45), rank2(60), rank2(70), rank2(75)));

  ASSERT_EQ(data.colls.size(), 3u);
  int64_t begin[] = {91, 81, rank2(85)}, end[] = {140, 149, rank2(140)};
  for (const gs::CollRec& c : data.colls) {
    ASSERT_LT(c.rank, 3u);
    EXPECT_EQ(std::make_tuple(c.comm, c.seq, c.pos, c.root), std::make_tuple(0u, 0u, c.rank, gs::kNone));
    EXPECT_EQ(c.cls, uint8_t(gs::CollClass::NxN));
    EXPECT_EQ(std::make_tuple(c.sent, c.received), std::make_tuple(uint64_t(24), uint64_t(24)));
    EXPECT_EQ(std::make_tuple(c.begin, c.end), std::make_tuple(begin[c.rank], end[c.rank]));
  }
}

TEST(TraceWriter, UnwritableFolderIsAnError) {
  std::string dir = temp_dir();
  std::ofstream(dir + "/file") << "not a folder";
  auto write = [&] {
    gs::TraceWriter w(dir + "/file/trace", {});
    w.add_rank("a", "n");
    uint32_t main = w.region("main");
    w.enter(0, 1, main);
    w.leave(0, 2, main);
    w.finish();
  };
  EXPECT_THROW(write(), gs::Error);
}

TEST(TraceWriter, UndeclaredRankAndCommunicatorAreErrors) {
  gs::TraceWriter w(temp_dir(), {});
  w.add_rank("a", "n");
  uint32_t main = w.region("main");
  EXPECT_THROW(w.enter(1, 1, main), gs::Error);
  EXPECT_THROW(w.comm("nope"), gs::Error);
  EXPECT_THROW(w.add_rank(7), gs::Error);  // no such system tree node
  w.enter(0, 1, main);
  w.leave(0, 2, main);
  w.finish();
}

}  // namespace

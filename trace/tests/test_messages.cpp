// Message records (messages.hpp): 32-byte records that read back exactly, the ones whose
// times or bytes do not fit kept whole on the side; one channel table for sends and receives.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/matching.hpp"
#include "gridscope/trace/reader.hpp"
#include "gridscope/trace/writer.hpp"

namespace {

auto times(const gs::SendRec& s) { return std::make_tuple(s.enter, s.evt, s.c_enter, s.c_leave, s.bytes); }
auto times(const gs::RecvRec& r) { return std::make_tuple(r.req_enter, r.enter, r.evt, r.leave, r.bytes); }

gs::SendRec send(int64_t enter, int64_t evt, int64_t c_enter, int64_t c_leave, uint64_t bytes) {
  gs::SendRec s{};
  s.src = 1; s.dst = 2; s.comm = 0; s.tag = 7; s.cp_complete = 5; s.lr_ok = 1; s.complete = 1; s.thread = 3;
  s.enter = enter; s.evt = evt; s.c_enter = c_enter; s.c_leave = c_leave; s.bytes = bytes;
  return s;
}

TEST(MessageRecords, ReadBackExactlyAtThirtyTwoBytes) {
  gs::LocalData data;
  const int64_t t = int64_t(1) << 40;  // a late time: the base needs more than 32 bits
  data.sends.push_back(send(t, t + 1, t, t + 9, 64));
  gs::RecvRec r{};
  r.src = 1; r.dst = 2; r.comm = 0; r.tag = 7; r.cp = 4; r.thread = 127; r.is_test = 1; r.same_call = 1;
  r.req_enter = t - 5; r.enter = t; r.evt = t + 3; r.leave = t + 4; r.bytes = 64;
  data.recvs.push_back(r);
  EXPECT_EQ(data.sends.bytes() + data.recvs.bytes(), 64u);
  const gs::SendRec s = data.sends[0];
  EXPECT_EQ(times(s), times(send(t, t + 1, t, t + 9, 64)));
  EXPECT_EQ(std::make_tuple(s.src, s.dst, s.comm, s.tag, s.cp_complete, s.lr_ok, s.complete, s.thread),
            std::make_tuple(1u, 2u, 0u, 7u, 5u, uint8_t(1), uint8_t(1), gs::Thread(3)));
  const gs::RecvRec q = data.recvs[0];
  EXPECT_EQ(times(q), times(r));
  EXPECT_EQ(std::make_tuple(q.src, q.dst, q.tag, q.cp, q.thread, q.is_test, q.same_call),
            std::make_tuple(1u, 2u, 7u, 4u, gs::Thread(127), uint8_t(1), uint8_t(1)));
  // one channel table: the send and the receive of one channel have one id, and match
  EXPECT_EQ(data.sends.channel(0), data.recvs.channel(0));
  EXPECT_EQ(gs::match(data.recvs, data.sends, nullptr), std::vector<uint32_t>{0});
}

TEST(MessageRecords, WhatDoesNotFitIsKeptWhole) {
  gs::LocalData data;
  const int64_t gap = int64_t(5) << 32;  // an Isend whose Wait comes ~21 s later (at 1 GHz)
  const std::vector<gs::SendRec> sends = {
      send(100, 101, 100 + gap, 100 + gap + 3, 8),          // wait after a gap beyond 32 bits
      send(-50, -40, -40, -30, 8),                          // before the global offset
      send(int64_t(1) << 50, (int64_t(1) << 50) + 1, (int64_t(1) << 50) + 1, (int64_t(1) << 50) + 2, 8),
      send(200, 201, 150, 210, 8),                          // completed in a frame entered earlier
      send(300, 301, 300, 302, uint64_t(5) << 32),          // 20 GiB
      send(400, 401, 400, 402, 8)};                         // fits again
  for (const gs::SendRec& s : sends) data.sends.push_back(s);
  for (size_t i = 0; i < sends.size(); ++i) EXPECT_EQ(times(data.sends[i]), times(sends[i])) << i;
  const size_t wide = data.sends.bytes() - 6 * 32;
  EXPECT_EQ(wide % 5, 0u);  // five records on the side
  // set(): a record that grows wide moves to the side, one that was wide stays there
  data.sends.set(5, send(400, 401, 400 + gap, 400 + gap + 1, 8));
  data.sends.set(0, send(100, 101, 102, 103, 8));
  data.sends.set(0, send(100, 101, 100 + 2 * gap, 100 + 2 * gap, 8));
  EXPECT_EQ(data.sends.bytes() - 6 * 32, wide / 5 * 6);
  EXPECT_EQ(times(data.sends[5]), times(send(400, 401, 400 + gap, 400 + gap + 1, 8)));
  EXPECT_EQ(times(data.sends[0]), times(send(100, 101, 100 + 2 * gap, 100 + 2 * gap, 8)));
  // set_last(): the last time alone, kept compact while it fits
  const size_t before = data.sends.bytes();
  data.sends.push_back(send(500, 501, 500, 501, 8));
  data.sends.set_last(6, 502);
  EXPECT_EQ(times(data.sends[6]), times(send(500, 501, 500, 502, 8)));
  EXPECT_EQ(data.sends.bytes(), before + 32);
  data.sends.set_last(6, 500 + gap);
  EXPECT_EQ(times(data.sends[6]), times(send(500, 501, 500, 500 + gap, 8)));
  data.sends.set_last(6, 503);
  EXPECT_EQ(times(data.sends[6]), times(send(500, 501, 500, 503, 8)));
  data.sends.set_last(1, -20);
  EXPECT_EQ(times(data.sends[1]), times(send(-50, -40, -40, -20, 8)));
  gs::RecvRec r{};
  r.req_enter = 10; r.enter = 20; r.evt = 30; r.leave = 30; r.bytes = 1;
  data.recvs.push_back(r);
  data.recvs.set_last(0, 30 + gap);  // a blocking receive whose call ends long after the message came
  r.leave = 30 + gap;
  EXPECT_EQ(times(data.recvs[0]), times(r));
  // the stored records move among their positions with their side entries
  std::swap(data.sends.packed()[0], data.sends.packed()[4]);
  EXPECT_EQ(times(data.sends[0]), times(sends[4]));
  EXPECT_EQ(times(data.sends[4]), times(send(100, 101, 100 + 2 * gap, 100 + 2 * gap, 8)));
}

// A trace at 1 GHz whose Isend completes in an MPI_Wait 5 s (more than 2^32 ticks) later and
// whose Irecv is posted 6 s before its Wait, the receives of one MPI_Waitall grouped: it
// reads back exactly.
TEST(MessageRecords, TraceWithHugeGapsReadsBackExactly) {
  std::string dir = testing::TempDir() + "gs_messages_gap";
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
  gs::WriterOptions opt;
  opt.resolution = 1000000000;
  opt.fixed_global_offset = true;
  gs::TraceWriter w(dir, opt);
  w.add_rank("siteA", "a0");
  w.add_rank("siteA", "a0");
  const uint32_t main = w.region("main"), isend = w.region("MPI_Isend"), wait = w.region("MPI_Wait"),
                 irecv = w.region("MPI_Irecv"), waitall = w.region("MPI_Waitall");
  const uint64_t s = 1000000000;
  w.enter(0, 0, main);
  w.enter(0, 1 * s, isend); w.isend(0, 1 * s + 1, 1, gs::kWorldComm, 3, 16, 1); w.leave(0, 1 * s + 2, isend);
  w.enter(0, 1 * s + 3, isend); w.isend(0, 1 * s + 4, 1, gs::kWorldComm, 3, 16, 2); w.leave(0, 1 * s + 5, isend);
  w.enter(0, 6 * s, wait); w.isend_complete(0, 6 * s + 1, 1); w.leave(0, 6 * s + 2, wait);
  w.enter(0, 6 * s + 3, wait); w.isend_complete(0, 6 * s + 4, 2); w.leave(0, 6 * s + 5, wait);
  w.leave(0, 20 * s, main);
  w.enter(1, 0, main);
  w.enter(1, 1 * s, irecv); w.irecv_request(1, 1 * s + 1, 8); w.leave(1, 1 * s + 2, irecv);
  w.enter(1, 1 * s + 3, irecv); w.irecv_request(1, 1 * s + 4, 9); w.leave(1, 1 * s + 5, irecv);
  w.enter(1, 7 * s, waitall);
  w.irecv(1, 7 * s + 1, 0, gs::kWorldComm, 3, 16, 8); w.irecv(1, 12 * s, 0, gs::kWorldComm, 3, 16, 9);
  w.leave(1, 12 * s + 1, waitall);
  w.leave(1, 20 * s, main);
  w.finish();

  gs::Archive archive(dir + "/traces.otf2");
  gs::LocalData data;
  gs::read_locations(archive, {0, 1}, data);
  ASSERT_EQ(data.sends.size(), 2u);
  const int64_t S = int64_t(s);
  EXPECT_EQ(times(data.sends[0]), std::make_tuple(1 * S, 1 * S + 1, 6 * S, 6 * S + 2, uint64_t(16)));
  EXPECT_EQ(times(data.sends[1]), std::make_tuple(1 * S + 3, 1 * S + 4, 6 * S + 3, 6 * S + 5, uint64_t(16)));
  ASSERT_EQ(data.recvs.size(), 2u);
  EXPECT_EQ(times(data.recvs[0]), std::make_tuple(1 * S, 7 * S, 7 * S + 1, 12 * S + 1, uint64_t(16)));
  EXPECT_EQ(times(data.recvs[1]), std::make_tuple(1 * S + 3, 7 * S, 12 * S, 12 * S + 1, uint64_t(16)));
  EXPECT_EQ(data.recvs[0].same_call, 0);  // the location's first receive
  EXPECT_EQ(data.recvs[1].same_call, 1);  // the same MPI_Waitall
  EXPECT_EQ(gs::match(data.recvs, data.sends, nullptr), (std::vector<uint32_t>{0, 1}));
}

// A rank whose master and thread each complete two receives in one MPI_Waitall: merged into
// the rank's completion order, each call's receives stay neighbours and only the first of
// each is marked as a new call (the replay groups a call's receives by that mark).
TEST(MessageRecords, ThreadsKeepEachCallsReceivesTogether) {
  for (const uint64_t thread_leave : {90, 60}) {  // a tie with the master's call, or before it
    std::string dir = testing::TempDir() + "gs_messages_threads" + std::to_string(thread_leave);
    ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
    gs::TraceWriter w(dir, gs::WriterOptions{});
    w.add_rank("siteA", "a0");
    w.add_rank("siteA", "a0");
    const uint32_t thread = w.add_thread(0, 1);
    const uint32_t main = w.region("main"), irecv = w.region("MPI_Irecv"), waitall = w.region("MPI_Waitall"),
                   send = w.region("MPI_Send");
    for (uint32_t loc : {0u, thread}) {
      w.enter(loc, 0, main);
      const uint32_t tag = loc == 0 ? 0 : 10;  // master: tags 0, 1; thread: 10, 11
      for (uint32_t k = 0; k < 2; ++k) {
        w.enter(loc, 10 + 2 * k, irecv); w.irecv_request(loc, 11 + 2 * k, 1 + k); w.leave(loc, 11 + 2 * k, irecv);
      }
      const uint64_t leave = loc == 0 ? 90 : thread_leave;
      w.enter(loc, 40, waitall);
      w.irecv(loc, 50, 1, gs::kWorldComm, tag, 8, 1); w.irecv(loc, 51, 1, gs::kWorldComm, tag + 1, 8, 2);
      w.leave(loc, leave, waitall);
      w.leave(loc, 100, main);
    }
    w.enter(1, 0, main);
    for (uint32_t tag : {0u, 1u, 10u, 11u}) {
      w.enter(1, 20 + tag, send); w.send(1, 20 + tag, 0, gs::kWorldComm, tag, 8); w.leave(1, 21 + tag, send);
    }
    w.leave(1, 100, main);
    w.finish();

    gs::Archive archive(dir + "/traces.otf2");
    gs::LocalData data;
    gs::read_locations(archive, {0, 1}, data);
    ASSERT_EQ(data.recvs.size(), 4u);
    std::vector<uint32_t> tags, new_call;
    for (size_t i = 0; i < 4; ++i) {
      tags.push_back(data.recvs[i].tag);
      new_call.push_back(!data.recvs[i].same_call);
    }
    const std::vector<uint32_t> expected =
        thread_leave < 90 ? std::vector<uint32_t>{10, 11, 0, 1} : std::vector<uint32_t>{0, 1, 10, 11};
    EXPECT_EQ(tags, expected) << thread_leave;
    EXPECT_EQ(new_call, (std::vector<uint32_t>{1, 0, 1, 0})) << thread_leave;
  }
}

}  // namespace

// Message matching (matching.hpp): channel table and per-channel queues in posting order.
#include <gtest/gtest.h>

#include <vector>

#include "gridscope/trace/matching.hpp"

namespace {

struct Msg { uint32_t src, dst, comm, tag; };

}  // namespace

TEST(Channels, DenseIdsSurviveGrowth) {
  gs::Channels ch;
  const uint32_t n = 5000;  // far beyond the initial 64 slots
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(ch.id({i % 7, i, 0, i * 3}), i);
  EXPECT_EQ(ch.size(), n);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(ch.find({i % 7, i, 0, i * 3}), i);
  EXPECT_EQ(ch.find({1, 2, 3, 4}), gs::kNone);
  EXPECT_EQ(ch.id({0, 0, 0, 0}), 0u);  // the same key again: same id
}

TEST(Match, KthSendGoesWithKthReceivePerChannel) {
  std::vector<Msg> recvs = {{0, 1, 0, 5}, {0, 1, 0, 6}, {0, 1, 0, 5}, {2, 1, 0, 5}};
  std::vector<Msg> sends = {{0, 1, 0, 5}, {0, 1, 0, 5}, {0, 1, 0, 6}, {0, 1, 0, 7}};
  uint64_t unmatched = 0;
  std::vector<uint32_t> p = gs::match(recvs, sends, &unmatched);
  EXPECT_EQ(p, (std::vector<uint32_t>{0, 2, 1, gs::kNone}));
  EXPECT_EQ(unmatched, 1u);  // the send on tag 7
}

TEST(Match, LocalRecordsInPostingOrder) {
  // receives stored in completion order; posted in the order 1, 0
  std::vector<Msg> recvs = {{0, 1, 0, 5}, {0, 1, 0, 5}};
  std::vector<Msg> sends = {{0, 1, 0, 5}, {0, 1, 0, 5}};
  EXPECT_EQ(gs::match(recvs, sends, nullptr, {1, 0}), (std::vector<uint32_t>{1, 0}));
}

TEST(Match, RemoteRecordsInPostingOrder) {
  std::vector<Msg> sends = {{0, 1, 0, 5}, {0, 1, 0, 5}, {0, 1, 0, 9}};
  std::vector<Msg> posted = {{0, 1, 0, 9}, {0, 1, 0, 5}, {0, 1, 0, 5}};  // posted: 0, 2, 1
  EXPECT_EQ(gs::match(sends, posted, nullptr, {}, {0, 2, 1}), (std::vector<uint32_t>{2, 1, 0}));
}

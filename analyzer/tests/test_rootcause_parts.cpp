// The root-cause pass's per-waiting-rank sums (rootcause_impl.hpp: PartialSums): what a
// waiting owner sends to the delayers' owners must be each key's sum in the order the costs
// were added, once per key, and nothing of a rank after its flush.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "rootcause_impl.hpp"

namespace gs::rootcause_detail {
namespace {

CauseKey key(uint32_t cp, uint32_t rank = 3, uint8_t kind = KIND_COMPUTATION) {
  return CauseKey{7, 1, kind, cp, rank, 0};
}

std::map<std::tuple<uint32_t, uint32_t, uint8_t>, std::vector<double>> flushed(PartialSums& s) {
  std::map<std::tuple<uint32_t, uint32_t, uint8_t>, std::vector<double>> out;
  s.flush([&](const CauseKey& k, double v) { out[{k.cp, k.rank, k.kind}].push_back(v); });
  return out;
}

TEST(PartialSums, EachKeyOnceInTheOrderAdded) {
  PartialSums s;
  // (1e16 + 1) + (-1e16) is 0 in doubles, 1e16 + (1 - 1e16) is not: the order shows
  s.add(key(5), 1e16);
  s.add(key(6), 2.0);
  s.add(key(5), 1.0);
  s.add(key(6, 4), 3.0);
  s.add(key(5), -1e16);
  s.add(key(5, 3, kSevKind), 0.5);
  const auto out = flushed(s);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out.at({5, 3, KIND_COMPUTATION}), std::vector<double>{0.0});
  EXPECT_EQ(out.at({6, 3, KIND_COMPUTATION}), std::vector<double>{2.0});
  EXPECT_EQ(out.at({6, 4, KIND_COMPUTATION}), std::vector<double>{3.0});
  EXPECT_EQ(out.at({5, 3, kSevKind}), std::vector<double>{0.5});
}

TEST(PartialSums, AFlushLeavesNothingForTheNextRank) {
  PartialSums s;
  s.add(key(1), 1.0);
  s.add(key(2), 2.0);
  flushed(s);
  EXPECT_TRUE(flushed(s).empty());
  s.add(key(1), 4.0);  // the next rank's: its own sum, not added to the last one's
  const auto out = flushed(s);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at({1, 3, KIND_COMPUTATION}), std::vector<double>{4.0});
}

TEST(PartialSums, KeysBeyondTheCacheAreSummedApart) {
  PartialSums s;  // more keys than cache slots: colliding keys must not share a sum
  for (int round = 0; round < 3; ++round)
    for (uint32_t cp = 0; cp < 2000; ++cp) s.add(key(cp), double(cp + 1));
  const auto out = flushed(s);
  ASSERT_EQ(out.size(), 2000u);
  for (uint32_t cp = 0; cp < 2000; ++cp) EXPECT_EQ(out.at({cp, 3, KIND_COMPUTATION}), std::vector<double>{3.0 * (cp + 1)});
}

}  // namespace
}  // namespace gs::rootcause_detail

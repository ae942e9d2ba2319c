// Message matching shared by the replay and the clock correction.
#pragma once
#include <cstdint>
#include <vector>

#include "gridscope/trace/records.hpp"

namespace gs {

// Matches messages the way MPI does: the k-th send posted on a channel (src, dst, comm,
// tag) goes with the k-th receive posted on it (non-overtaking). A channel has one sender
// and one receiver, so per-channel queues in posting order give the pairs in O(n): one
// table lookup per record, no sorting.
struct ChanKey {
  uint32_t src, dst, comm, tag;
  bool operator==(const ChanKey& o) const { return src == o.src && dst == o.dst && comm == o.comm && tag == o.tag; }
};

template <class R>
ChanKey chan(const R& r) { return {r.src, r.dst, r.comm, r.tag}; }

// Channel key -> dense id. Open addressing with linear probing: a lookup is one or two
// cache lines, where a node-based hash map chases a pointer per probe.
class Channels {
 public:
  Channels() : slots_(64) {}  // a power of two; grows at half full
  uint32_t id(const ChanKey& k) {
    if (last_ != kNone && k == last_key_) return last_;
    size_t i = slot_of(k);
    if (slots_[i].id == kNone) {
      if (2 * (count_ + 1) > slots_.size()) { grow(); i = slot_of(k); }
      slots_[i] = {k, count_++};
    }
    last_key_ = k;
    return last_ = slots_[i].id;
  }
  uint32_t find(const ChanKey& k) const { return slots_[slot_of(k)].id; }
  uint32_t size() const { return count_; }

 private:
  struct Slot { ChanKey key{}; uint32_t id = kNone; };
  static size_t hash(const ChanKey& k) {
    uint64_t h = (uint64_t(k.src) << 32 | k.dst) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t(k.comm) << 32 | k.tag) * 0xC2B2AE3D27D4EB4Full;
    return size_t(h ^ (h >> 29));
  }
  // the slot holding k, or the empty one where it would go
  size_t slot_of(const ChanKey& k) const {
    size_t mask = slots_.size() - 1;
    size_t i = hash(k) & mask;
    while (slots_[i].id != kNone && !(slots_[i].key == k)) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.id != kNone) slots_[slot_of(s.key)] = s;
  }
  std::vector<Slot> slots_;
  uint32_t count_ = 0;
  ChanKey last_key_{};
  uint32_t last_ = kNone;
};

// Index of the partner record (in `remote`) for each local record, kNone when unmatched.
// `local_order` / `remote_order` give the posting order of the records when it is not the
// stored one (receives are stored in completion order, see LocalData::recv_order).
template <class LocalList, class RemoteList>
std::vector<uint32_t> match(const LocalList& local, const RemoteList& remote, uint64_t* unmatched_remote,
                            const Order& local_order = {}, const Order& remote_order = {}) {
  Channels ch;
  std::vector<uint32_t> chan_of(remote.size());
  std::vector<uint32_t> start;
  for (size_t i = 0; i < remote.size(); ++i) {
    uint32_t c = chan_of[i] = ch.id(chan(remote[i]));
    if (c >= start.size()) start.resize(c + 1, 0);
    start[c]++;
  }
  // counts -> offsets (CSR); queue[c] lists the channel's remote records in posting order
  uint32_t sum = 0;
  for (auto& x : start) { uint32_t n = x; x = sum; sum += n; }
  std::vector<uint32_t> queue(remote.size()), fill(start), next(start);
  for (size_t n = 0; n < remote.size(); ++n) {
    uint32_t i = remote_order.empty() ? uint32_t(n) : remote_order[n];
    queue[fill[chan_of[i]]++] = i;
  }
  std::vector<uint32_t> partner(local.size(), kNone);
  size_t matched = 0;
  uint32_t last = kNone;
  ChanKey last_key{};
  for (size_t n = 0; n < local.size(); ++n) {
    uint32_t i = local_order.empty() ? uint32_t(n) : local_order[n];
    ChanKey k = chan(local[i]);
    uint32_t c = (last != kNone && k == last_key) ? last : ch.find(k);
    last = c; last_key = k;
    if (c == kNone || next[c] == fill[c]) continue;
    partner[i] = queue[next[c]++];
    ++matched;
  }
  if (unmatched_remote) *unmatched_remote += remote.size() - matched;
  return partner;
}

}  // namespace gs
